#if __has_include("/etc/shadow")
#define SHADOW 1
#endif
