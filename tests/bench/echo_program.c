/* bench: a minimal program with the harness's shape: read the input on
 * fd 3, write a result on fd 4, exit. Linked statically like submissions. */
#include <unistd.h>

int main(void)
{
    char buf[4096];
    while (read(3, buf, sizeof buf) > 0)
        ;
    return write(4, "result-record-16", 16) == 16 ? 0 : 1;
}
