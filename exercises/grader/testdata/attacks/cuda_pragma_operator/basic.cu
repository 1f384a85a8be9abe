#define P(x) _Pragma(#x)
P(push_macro("X"))
