/* Spend the run in machine code copied into an anonymous executable
 * mapping, as a JIT does: its samples belong to no file, so symbol
 * resolution must give "??" for them.  x86-64 only.
 * Usage: anon_exec [ROUNDS] (default 2000, about half a second) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* mov ecx, 200000; 1: dec ecx; jnz 1b; ret */
static const unsigned char code[] = {
	0xb9, 0x40, 0x0d, 0x03, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
};

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	void *p;

	if (rounds < 0) {
		fprintf(stderr, "usage: anon_exec [ROUNDS]\n");
		return 2;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("anon_exec: mmap");
		return 1;
	}
	memcpy(p, code, sizeof(code));
	printf("code %p\n", p);
	fflush(stdout);
	for (long r = 0; r < rounds; r++)
		((void (*)(void))p)();
	return 0;
}
