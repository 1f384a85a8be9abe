/* The seven-point reference sweep in plain C, the yardstick for the Go
 * loop in lab.SevenPointThreads(…, 1). Same mapping, same float32 data,
 * one thread. Prints the median of REPS sweeps in milliseconds.
 *
 *   make -C bench            # builds with gcc -O3 and runs at N = 256
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sweep(float *restrict out, const float *restrict in, int n, const float c[7]) {
	const long p = (long)n * n;
	for (int i = 1; i < n - 1; i++)
		for (int j = 1; j < n - 1; j++) {
			const long b = i * p + (long)j * n;
			for (int k = 1; k < n - 1; k++)
				out[b + k] = c[0] * in[b + k] + c[1] * in[b + k - 1] + c[2] * in[b + k + 1] +
				             c[3] * in[b + k - n] + c[4] * in[b + k + n] +
				             c[5] * in[b + k - p] + c[6] * in[b + k + p];
		}
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 256;
	int reps = argc > 2 ? atoi(argv[2]) : 21;
	if (n < 3 || reps < 1 || reps > 1000) {
		fprintf(stderr, "usage: sevenpoint [N >= 3] [REPS 1..1000]\n");
		return 2;
	}
	long total = (long)n * n * n;
	float *in = malloc(total * sizeof *in), *out = malloc(total * sizeof *out);
	if (!in || !out) {
		fprintf(stderr, "sevenpoint: out of memory for N = %d\n", n);
		return 1;
	}
	unsigned s = 12345;
	for (long q = 0; q < total; q++) {
		s = s * 1103515245u + 12345u;
		in[q] = out[q] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
	const float c[7] = {0.5f, 0.11f, 0.13f, 0.17f, 0.19f, 0.23f, 0.29f};
	double t[1000];
	for (int r = 0; r < reps; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		sweep(out, in, n, c);
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[r] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
	}
	qsort(t, reps, sizeof t[0], cmp);
	double check = 0;
	for (long q = 0; q < total; q += 4099) check += out[q];
	printf("c gcc -O3 N=%d: median %.3f ms over %d sweeps (checksum %.4f)\n", n, t[reps / 2], reps, check);
	free(in);
	free(out);
	return 0;
}
