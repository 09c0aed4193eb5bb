/* The VALUES grammar: lists, ranges, geometric ranges, 2^e, words, and the
 * error message for each kind of bad input. */
#include <string.h>

#include "check.h"
#include "case/values.h"

static void expect(const char *text, const char *joined)
{
    struct mpb_values v;
    char why[256], buf[4096] = "";
    bool ok = mpb_values_parse(text, &v, why, sizeof why);
    CHECK(ok, "'%s' rejected: %s", text, why);
    if (!ok)
        return;
    for (int i = 0; i < v.n; i++) {
        strcat(buf, i ? "," : "");
        strcat(buf, v.items[i]);
    }
    CHECK(strcmp(buf, joined) == 0, "'%s' gave '%s', expected '%s'", text, buf, joined);
    mpb_values_free(&v);
}

static void reject(const char *text, const char *must_mention)
{
    struct mpb_values v;
    char why[256] = "";
    bool ok = mpb_values_parse(text, &v, why, sizeof why);
    CHECK(!ok, "'%s' was accepted", text);
    if (!ok)
        CHECK(strstr(why, must_mention) != NULL, "'%s': message '%s' lacks '%s'", text, why, must_mention);
    else
        mpb_values_free(&v);
}

int main(void)
{
    expect("4096", "4096");
    expect("1,2,3", "1,2,3");
    expect("1:4", "1,2,3,4");
    expect("0:1:0.25", "0,0.25,0.5,0.75,1");
    expect("0.1:0.3:0.1", "0.1,0.2,0.3");
    expect("5:1:-2", "5,3,1");
    expect("1024:16384:*2", "1024,2048,4096,8192,16384");
    expect("1000:9000:*3", "1000,3000,9000");
    expect("2^12", "4096");
    expect("2^-2", "0.25");
    expect("2^10:2^12:*2", "1024,2048,4096");
    expect("eager,performant", "eager,performant");
    expect("1e-3,-0.5", "0.001,-0.5");
    expect("9007199254740992", "9007199254740992");
    expect("7,1:2,auto", "7,1,2,auto");
    /* A number keeps its value: the shortest string that reads back to it. */
    expect("0.12345678901234567", "0.12345678901234566");

    reject("", "empty item");
    reject("1,,2", "empty item");
    reject("1,", "empty item");
    reject("4:1", "empty");
    reject("1:4:0", "non-zero");
    reject("1:4:-1", "point from start to end");
    reject("1:2:3:4", "more than three parts");
    reject("a:b", "ends must be numbers");
    reject("1:8:*1", "f > 1");
    reject("0:8:*2", "0 < start");
    reject("1:8:x", "step 'x' is not a number");
    reject("2^x", "neither a number");
    reject("4k", "neither a number");
    reject("1:1e9", "more than");
    reject("1e-400", "'1e-400' underflows to 0");
    reject("1e400", "'1e400' overflows");
    reject("1:1e400", "'1e400' overflows");
    reject("9007199254740993", "'9007199254740993' is not exactly representable");
    reject("-18014398509481985", "not exactly representable");
    return check_report("test_values");
}
