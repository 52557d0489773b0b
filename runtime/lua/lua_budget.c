/* Budgets for Lua code the runtime calls on a host's behalf (gateway
 * policies): an instruction count and a memory cap per call, and a stop signal
 * honoured, so that a method that loops or allocates fails its call instead of
 * hanging the client or exhausting the process. The count hook and the
 * allocator are swapped in for the call and the previous ones put back after
 * it; both are the state's own, so this works on a lent state too. */
#include "bindings.h"

#define BUDGET_TICK 1000 /* instructions between two looks at the budget */

typedef struct budget {
    lua_Alloc inner;
    void *inner_ud;
    int64_t grown; /* bytes allocated during the call, net of what it freed */
    uint64_t steps;
    ipfsrt_lua_budget limits;
    bool over_memory;
} budget;

/* Wraps the state's allocator (Lua allows swapping it: blocks allocated
 * before pass through to it unchanged); growth past the cap is refused, which
 * Lua raises as a memory error in the method. */
static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    budget *b = ud;
    size_t old = ptr ? osize : 0;
    if (nsize > old && b->limits.max_memory &&
        b->grown + (int64_t)(nsize - old) > (int64_t)b->limits.max_memory) {
        b->over_memory = true;
        return NULL;
    }
    void *p = b->inner(b->inner_ud, ptr, osize, nsize);
    if (p || nsize == 0) b->grown += (int64_t)nsize - (int64_t)old;
    return p;
}

/* Every BUDGET_TICK instructions. Once over, it raises at every instruction,
 * so a method catching the error with pcall in a loop is stopped all the same
 * (the instruction after each pcall raises again). A hook left on a coroutine
 * that outlived its call finds another allocator and does nothing. */
static void budget_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    void *ud;
    if (lua_getallocf(L, &ud) != budget_alloc) return;
    budget *b = ud;
    b->steps += (uint64_t)lua_gethookcount(L);
    int sig = ipfsrt_stop_requested();
    bool over = b->limits.max_instructions && b->steps > b->limits.max_instructions;
    if (!sig && !over) return;
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    if (sig) luaL_error(L, "stopped by signal %d", sig);
    luaL_error(L, "ran over its budget of %I instructions (a loop that does not end?)",
               (lua_Integer)b->limits.max_instructions);
}

int ipfsrt_lua_budget_pcall(lua_State *L, int nargs, int nresults, const ipfsrt_lua_budget *limits) {
    budget b = {.limits = *limits};
    b.inner = lua_getallocf(L, &b.inner_ud);
    lua_Hook old_hook = lua_gethook(L);
    int old_mask = lua_gethookmask(L), old_count = lua_gethookcount(L);
    lua_setallocf(L, budget_alloc, &b);
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, BUDGET_TICK);
    int status = lua_pcall(L, nargs, nresults, 0);
    lua_sethook(L, old_hook, old_mask, old_count);
    lua_setallocf(L, b.inner, b.inner_ud);
    if (status == LUA_ERRMEM && b.over_memory) {
        lua_pop(L, 1); /* Lua's own "not enough memory" */
        lua_pushfstring(L, "ran over its memory budget of %d MiB", (int)(limits->max_memory >> 20));
    }
    return status;
}

void ipfsrt_lua_budget_init(ipfsrt_lua_budget *limits, uint64_t max_instructions, uint64_t max_memory) {
    limits->max_instructions = max_instructions ? max_instructions : IPFSRT_LUA_POLICY_MAX_INSTRUCTIONS;
    limits->max_memory = max_memory ? max_memory : IPFSRT_LUA_POLICY_MAX_MEMORY;
}

/* core.budget_call(limits, f, ...) -> true, results... | false, error: pcall
 * under a budget ({max_instructions =, max_memory =}, each nil or 0 for the
 * policies' default; limits nil for both). lua/ipfsrt/policy.lua runs a
 * policy's file and constructor with it. */
static int budget_call(lua_State *L) {
    lua_Integer instructions = 0, memory = 0;
    if (!lua_isnil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        instructions = ipfsrt_lua_opt_int(L, 1, "max_instructions", 0);
        memory = ipfsrt_lua_opt_int(L, 1, "max_memory", 0);
    }
    ipfsrt_lua_budget limits;
    ipfsrt_lua_budget_init(&limits, instructions > 0 ? (uint64_t)instructions : 0, memory > 0 ? (uint64_t)memory : 0);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_remove(L, 1);
    int status = ipfsrt_lua_budget_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, &limits);
    lua_pushboolean(L, status == LUA_OK);
    lua_insert(L, 1);
    return lua_gettop(L);
}

void ipfsrt_lua_open_budget(lua_State *L) {
    ipfsrt_lua_push_core(L);
    lua_pushcfunction(L, budget_call);
    lua_setfield(L, -2, "budget_call");
    lua_pop(L, 1);
}
