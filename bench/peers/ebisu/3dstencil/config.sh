rm ./build/init/CMakeCache.txt 

cmake -S . -B ./build/init/
