build-x/obj/src/image/png_map.o: runtime/src/image/png_map.c \
 /usr/include/libpng16/png.h /usr/include/libpng16/pnglibconf.h \
 /usr/include/libpng16/pngconf.h runtime/src/base/base_internal.h \
 runtime/include/ipfsrt/error.h runtime/include/ipfsrt/base.h \
 runtime/include/ipfsrt/buf.h runtime/src/image/image_internal.h \
 runtime/include/ipfsrt/image.h runtime/include/ipfsrt/ndarray.h \
 runtime/include/ipfsrt/error.h
/usr/include/libpng16/png.h:
/usr/include/libpng16/pnglibconf.h:
/usr/include/libpng16/pngconf.h:
runtime/src/base/base_internal.h:
runtime/include/ipfsrt/error.h:
runtime/include/ipfsrt/base.h:
runtime/include/ipfsrt/buf.h:
runtime/src/image/image_internal.h:
runtime/include/ipfsrt/image.h:
runtime/include/ipfsrt/ndarray.h:
runtime/include/ipfsrt/error.h:
