build-m/judge/tensor.o: judge/tensor.c judge/tensor.h
judge/tensor.h:
