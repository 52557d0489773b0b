build-x/obj/src/netcdf/write.o: runtime/src/netcdf/write.c \
 runtime/include/ipfsrt/netcdf.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h
runtime/include/ipfsrt/netcdf.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
