#include <stdio.h>
int main(void) { puts("ibvf"); return 0; }
