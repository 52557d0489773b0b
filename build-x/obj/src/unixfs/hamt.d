build-x/obj/src/unixfs/hamt.o: runtime/src/unixfs/hamt.c \
 runtime/src/unixfs/hamt.h
runtime/src/unixfs/hamt.h:
