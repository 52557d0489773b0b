build-x/obj/src/base/clock.o: runtime/src/base/clock.c \
 runtime/include/ipfsrt/base.h
runtime/include/ipfsrt/base.h:
