#line 1 "/work/grader/hidden.go"
this does not compile
