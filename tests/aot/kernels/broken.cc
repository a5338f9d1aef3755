// Does not compile: used to check that compiler errors reach the user.
extern "C" int CustomBroken(int nparam, void **params { return undeclared_name; }
