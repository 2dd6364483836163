build-m/judge/npy.o: judge/npy.c judge/npy.h judge/tensor.h util/fs.h \
 util/compiler.h
judge/npy.h:
judge/tensor.h:
util/fs.h:
util/compiler.h:
