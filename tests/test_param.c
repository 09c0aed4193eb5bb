/* Parameter parsing (src/core/param.c) where the value grammar and the
 * parameter kinds meet: a choice spelt in digits, as refine_fp16's tau. */
#include <string.h>

#include "check.h"
#include "param.h"

int main(void)
{
    static const char *const tau[] = {"000", "001", "010", "011", "100", "101", "110", "111", NULL};
    const struct mpb_param_spec spec = {.name = "tau", .kind = MPB_PARAM_CHOICE, .def = "110", .choices = tau};
    char why[256];
    double v;
    /* As typed, and as the value grammar passes a number on (010 -> 10, 000 -> 0). */
    CHECK(mpb_param_parse(&spec, "010", &v, why, sizeof why) && v == 2, "010 is choice 2");
    CHECK(mpb_param_parse(&spec, "10", &v, why, sizeof why) && v == 2, "10 is 010");
    CHECK(mpb_param_parse(&spec, "0", &v, why, sizeof why) && v == 0, "0 is 000");
    CHECK(mpb_param_parse(&spec, "111", &v, why, sizeof why) && v == 7, "111 is choice 7");
    CHECK(!mpb_param_parse(&spec, "2", &v, why, sizeof why), "2 is no choice");
    CHECK(!mpb_param_parse(&spec, "0010", &v, why, sizeof why) || v == 2, "0010 can only mean 010");
    CHECK(!mpb_param_parse(&spec, "", &v, why, sizeof why), "empty is no choice");
    char buf[32];
    mpb_param_format(&spec, 2, buf, sizeof buf);
    CHECK(strcmp(buf, "010") == 0, "choice 2 prints as 010, got %s", buf);
    return check_report("test_param");
}
