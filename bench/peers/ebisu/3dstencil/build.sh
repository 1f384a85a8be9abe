#rm ./build/init/CMakeCache.txt 
cmake --build ./build/init/  -j 16
