// An independent check of a claimed periodicity of an octal game d0.d1d2… (d0 in {0, 4}; at
// most 15 digits after the point; values below 4096), written from the definition: G(n) is the
// mex over every option (no sparse method, nothing shared with grundy), for n < N; then it
// checks G(n) = G(n + period) for every preperiod <= n < N - period and prints the last n below
// the preperiod where that fails (it must be preperiod - 1). Choose N beyond Austin's bound
// 2*preperiod + 2*period + (digits after the point) for a proof.
//   cc -O2 -o octal-brute scripts/octal-brute.c && ./octal-brute 4.344 6000 998 51
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: octal-brute CODE N PREPERIOD PERIOD\n"); return 2; }
  const char *code = argv[1]; long N = atol(argv[2]); long pre = atol(argv[3]), per = atol(argv[4]);
  int d[16] = {0}; int nd = 0; const char *dot = strchr(code, '.');
  if (dot != code) d[0] = code[0] - '0';
  for (const char *c = dot + 1; *c; c++) d[++nd] = *c - '0';
  unsigned short *G = calloc(N, 2); unsigned char *seen = calloc(65536, 1);
  for (long n = 1; n < N; n++) {
    memset(seen, 0, 4096);
    for (int x = 0; x <= nd; x++) {
      if (x > n) break;
      long r = n - x;
      if ((d[x] & 1) && r == 0) seen[0] = 1;
      if ((d[x] & 2) && r >= 1) seen[G[r]] = 1;
      if ((d[x] & 4) && r >= 2) for (long b = 1; b <= r / 2; b++) seen[G[b] ^ G[r - b]] = 1;
    }
    int g = 0; while (seen[g]) g++;
    if (g >= 4095) { fprintf(stderr, "G(%ld) >= 4095: beyond this checker\n", n); return 2; }
    G[n] = g;
  }
  long bad = -1;
  for (long n = pre; n + per < N; n++) if (G[n] != G[n + per]) bad = n;
  long last_exc = -1;
  for (long n = 0; n < pre; n++) if (n + per < N && G[n] != G[n + per]) last_exc = n;
  printf("%s N=%ld: G(n)=G(n+%ld) for all %ld<=n<%ld: %s; last n<%ld with G(n)!=G(n+p): %ld\n", code, N, per, pre, N - per, bad < 0 ? "yes" : "NO", pre, last_exc);
  return 0;
}
