build-x/obj/src/base/json.o: runtime/src/base/json.c \
 runtime/src/base/json_internal.h
runtime/src/base/json_internal.h:
