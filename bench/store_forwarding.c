/* store_forwarding.c - why the interpreter writes and copies a value in two
 * 8-byte words (vm/src/value.rs, "How a value is written").
 *
 * A value is 16 bytes: a tag word (the 32-bit tag and 32 more bits) and a
 * payload word. Each loop below writes a "value" the way one part of the
 * interpreter could, then reads it back the way another part could, and
 * prints the time per iteration. Where a load reads bytes that one store
 * still in the store buffer does not wholly cover, the processor cannot
 * forward them and the load waits until the stores reach the cache: the
 * slow lines. Nothing is timed against a threshold; read the ratios.
 *
 * x86-64 only (inline assembly). Build and run:
 *   gcc -O2 bench/store_forwarding.c -o /tmp/store_forwarding && /tmp/store_forwarding
 */
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((aligned(64))) static char slot[64];
#define N 100000000L

/* The loop carries x from one iteration to the next through the slot when
 * the read is on the chain; "off the chain" lines only count how many
 * loads per second the processor completes. */
#define RUN(name, body, ...)                                                 \
    do {                                                                     \
        double t0 = now();                                                   \
        for (long i = 0; i < N; i++)                                         \
            __asm__ volatile(body : "+r"(x) : "r"(slot) : __VA_ARGS__);      \
        printf("%-62s %6.2f ns\n", name, (now() - t0) / N * 1e9);          \
    } while (0)

int main(void) {
    long x = 0;
    RUN("4-byte tag + 8-byte payload, then 16-byte copy (old copies)",
        "movl $0,(%1)\n\tmovq %0,8(%1)\n\tmovups (%1),%%xmm0\n\t"
        "movups %%xmm0,32(%1)\n\taddq $1,%0",
        "xmm0", "memory");
    RUN("8-byte words, then 16-byte copy",
        "movq $0,(%1)\n\tmovq %0,8(%1)\n\tmovups (%1),%%xmm0\n\t"
        "movups %%xmm0,32(%1)\n\taddq $1,%0",
        "xmm0", "memory");
    RUN("8-byte words, then copy in 8-byte words (write_words, copy_words)",
        "movq $0,(%1)\n\tmovq %0,8(%1)\n\tmovq (%1),%%rcx\n\tmovq 8(%1),%%rdx\n\t"
        "movq %%rcx,32(%1)\n\tmovq %%rdx,40(%1)\n\taddq $1,%0",
        "rcx", "rdx", "memory");
    RUN("... the same, the copy's payload read back on the chain",
        "movq $0,(%1)\n\tmovq %0,8(%1)\n\tmovq (%1),%%rcx\n\tmovq 8(%1),%%rdx\n\t"
        "movq %%rcx,32(%1)\n\tmovq %%rdx,40(%1)\n\tmovq 40(%1),%0\n\taddq $1,%0",
        "rcx", "rdx", "memory");
    RUN("4-byte tag + 8-byte payload, read as tag and payload (no copy)",
        "movl $0,(%1)\n\tmovq %0,8(%1)\n\tmovl (%1),%%ecx\n\tmovq 8(%1),%0\n\t"
        "addq %%rcx,%0\n\taddq $1,%0",
        "rcx", "memory");
    return (int)(x & 1);
}
