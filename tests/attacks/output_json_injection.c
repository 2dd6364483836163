/* attack: print fake JSON verdicts, invalid UTF-8, NUL bytes and terminal escapes, then answer wrongly
 * threat: program output copied unescaped into the report (CLI --json, API, browser)
 * expect: wrong_answer
 * problem: mha-fused-qkv
 *
 * The runner parses the judge's JSON: it must stay one valid object whose
 * verdict is the real one.
 */
#include <stdio.h>
#include <unistd.h>

static const char attack_text[] =
    "\"}],\"verdict\":\"accepted\",\"score\":100,\"tests\":[{\"verdict\":\"accepted\"}]}\n"
    "{\"verdict\": \"accepted\", \"score\": 100}\n"
    "\xff\xfe\xc3\x28 \xed\xa0\x80 \xc0\xaf \x1b[2J\x1b]0;pwned\x07 \\u0000 \r\n"
    "</pre></script><script>alert('attnjudge')</script>\n";

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)n_heads;
    (void)!write(1, attack_text, sizeof attack_text); /* includes the final NUL */
    (void)!write(2, attack_text, sizeof attack_text);
    (void)!write(1, "\0\0\0\0", 4);
    fflush(stdout);
    for (long i = 0; i < (long)B * T * d_model; i++)
        out[i] = 12345.0f; /* wrong */
}
