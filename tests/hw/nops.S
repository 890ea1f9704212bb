/*
 * nops N: N turns of a loop of three nops and the two instructions that
 * loop (count down, branch back), then exit(0).  No libc, no dynamic
 * loader: every user-level instruction it retires is one of these, so
 * its instruction count is known exactly (D is the number of digits of
 * N, which the start parses):
 *
 *   arm64:  5 N + 6 D + 9   (start 3, 6 a digit, end of digits 2,
 *                            N == 0 check 1, exit 3)
 *   x86-64: 5 N + 8 D + 13  (start 4, 8 a digit, end of digits 4,
 *                            N == 0 check 2, exit 3)
 *
 * tests/hw/10-counting.bats holds hw_ref's count against the formula.
 * Without an argument (or with one that is not a number) the count is
 * what the digits give: no check beyond that.
 */
	.text
	.globl	_start
#if defined(__aarch64__)
_start:
	ldr	x1, [sp, #16]		/* argv[1] */
	cbz	x1, 2f
	mov	x0, #0
1:	ldrb	w2, [x1], #1
	cbz	w2, 2f
	sub	w2, w2, #'0'
	mov	x3, #10
	madd	x0, x0, x3, x2
	b	1b
2:	cbz	x0, 4f
3:	nop
	nop
	nop
	subs	x0, x0, #1
	b.ne	3b
4:	mov	x0, #0
	mov	x8, #93			/* exit */
	svc	#0
#elif defined(__x86_64__)
_start:
	mov	16(%rsp), %rsi		/* argv[1] */
	xor	%eax, %eax
	test	%rsi, %rsi
	jz	2f
1:	movzbl	(%rsi), %ecx
	inc	%rsi
	test	%ecx, %ecx
	jz	2f
	sub	$'0', %ecx
	imul	$10, %rax, %rax
	add	%rcx, %rax
	jmp	1b
2:	test	%rax, %rax
	jz	4f
3:	nop
	nop
	nop
	dec	%rax
	jnz	3b
4:	mov	$60, %eax		/* exit */
	xor	%edi, %edi
	syscall
#else
#error "nops: arm64 and x86-64 only"
#endif
	.section .note.GNU-stack, "", %progbits
