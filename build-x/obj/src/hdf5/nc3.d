build-x/obj/src/hdf5/nc3.o: runtime/src/hdf5/nc3.c runtime/src/hdf5/nc3.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h
runtime/src/hdf5/nc3.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
