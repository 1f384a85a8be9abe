// basic.cu: the reference, included

#include "../../../../exercises/20_cuda_basic/basic.cu"
