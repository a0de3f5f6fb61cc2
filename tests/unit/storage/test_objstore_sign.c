/*
 * Request signing (src/storage/sign.c) against published answers: the AWS
 * Signature Version 4 test suite (AWS General Reference, "Signature Version
 * 4 test suite": credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1,
 * service "service"), the S3 documentation's GET-object example, and the
 * hash/encoding helpers on known values. Azure Shared Key signing is proven
 * against Azurite, which verifies it (tests/integration/test_objstore_azure.c).
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "storage/sign.h"
#include "storage/xml.h"
#include "util/buf.h"
#include "util/util.h"

#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define PREFIX "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "

typedef struct vec {
  const char *name, *method, *path;
  inlet_kv query[3];
  size_t nq;
  inlet_kv headers[4]; /* host and x-amz-date are added */
  size_t nh;
  const char *body;
  const char *authorization;
} vec;

static const vec suite[] = {
    {"get-vanilla",
     "GET",
     "/",
     {{0}},
     0,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
    {"get-header-key-duplicate",
     "GET",
     "/",
     {{0}},
     0,
     {{"My-Header1", "value2,value2,value1"}},
     1,
     "",
     PREFIX "SignedHeaders=host;my-header1;x-amz-date, "
            "Signature=c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"},
    {"get-header-value-order",
     "GET",
     "/",
     {{0}},
     0,
     {{"My-Header1", "value4,value1,value3,value2"}},
     1,
     "",
     PREFIX "SignedHeaders=host;my-header1;x-amz-date, "
            "Signature=08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"},
    {"get-header-value-trim",
     "GET",
     "/",
     {{0}},
     0,
     {{"My-Header1", " value1"}, {"My-Header2", " \"a   b   c\""}},
     2,
     "",
     PREFIX "SignedHeaders=host;my-header1;my-header2;x-amz-date, "
            "Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"},
    {"get-unreserved",
     "GET",
     "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
     {{0}},
     0,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"},
    {"get-utf8",
     "GET",
     "/\xe1\x88\xb4",
     {{0}},
     0,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
    {"get-vanilla-empty-query-key",
     "GET",
     "/",
     {{"Param1", "value1"}},
     1,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
    {"get-vanilla-query-order-key-case",
     "GET",
     "/",
     {{"Param2", "value2"}, {"Param1", "value1"}},
     2,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
    {"get-vanilla-query-unreserved",
     "GET",
     "/",
     {{"-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
       "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}},
     1,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"},
    {"get-vanilla-utf8-query",
     "GET",
     "/",
     {{"\xe1\x88\xb4", "bar"}},
     1,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"},
    {"post-header-key-sort",
     "POST",
     "/",
     {{0}},
     0,
     {{"My-Header1", "value1"}},
     1,
     "",
     PREFIX "SignedHeaders=host;my-header1;x-amz-date, "
            "Signature=c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"},
    {"post-header-value-case",
     "POST",
     "/",
     {{0}},
     0,
     {{"My-Header1", "VALUE1"}},
     1,
     "",
     PREFIX "SignedHeaders=host;my-header1;x-amz-date, "
            "Signature=cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"},
    {"post-sts-header-before",
     "POST",
     "/",
     {{0}},
     0,
     {{"X-Amz-Security-Token",
       "AQoDYXdzEPT//////////"
       "wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPf"
       "IeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/"
       "kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7"
       "WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+"
       "scqKmlzm8"
       "FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="}},
     1,
     "",
     PREFIX "SignedHeaders=host;x-amz-date;x-amz-security-token, "
            "Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"},
    {"post-vanilla",
     "POST",
     "/",
     {{0}},
     0,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
    {"post-vanilla-query",
     "POST",
     "/",
     {{"Param1", "value1"}},
     1,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"},
    {"post-vanilla-query-nonunreserved",
     "POST",
     "/",
     {{"@#$%^", ""}, {"+", "/,?><`\";:\\|][{}"}},
     2,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=66c82657c86e26fb25238d0e69f011edc4c6df5ae71119d7cb98ed9b87393c1e"},
    {"post-vanilla-query-space",
     "POST",
     "/",
     {{"p", ""}},
     1,
     {{0}},
     0,
     "",
     PREFIX "SignedHeaders=host;x-amz-date, "
            "Signature=e71688addb58a26418614085fb730ba3faa623b461c17f48f2fbdb9361b94a9b"},
    {"post-x-www-form-urlencoded",
     "POST",
     "/",
     {{0}},
     0,
     {{"Content-Type", "application/x-www-form-urlencoded"}},
     1,
     "Param1=value1",
     PREFIX "SignedHeaders=content-type;host;x-amz-date, "
            "Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"},
    {"post-x-www-form-urlencoded-parameters",
     "POST",
     "/",
     {{0}},
     0,
     {{"Content-Type", "application/x-www-form-urlencoded; charset=utf8"}},
     1,
     "Param1=value1",
     PREFIX "SignedHeaders=content-type;host;x-amz-date, "
            "Signature=1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"},
};

static void test_sigv4__aws_test_suite(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof suite / sizeof suite[0]; i++) {
    const vec *v = &suite[i];
    inlet_kv h[8];
    size_t n = 0;
    h[n++] = (inlet_kv){"Host", "example.amazonaws.com"};
    h[n++] = (inlet_kv){"X-Amz-Date", "20150830T123600Z"};
    for (size_t k = 0; k < v->nh; k++)
      h[n++] = v->headers[k];
    char payload[65];
    inlet_sha256_hex(v->body, strlen(v->body), payload);
    inlet_sigv4_request r = {v->method,   v->path,   v->query,      v->nq,
                             h,           n,         payload,       "20150830T123600Z",
                             "us-east-1", "service", "AKIDEXAMPLE", SECRET};
    inlet_buf out = INLET_BUF_INIT;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_sigv4_authorization(&r, &out, NULL, &err), 0);
    if (strcmp((char *)out.data, v->authorization) != 0)
      fail_msg("%s:\n got  %s\n want %s", v->name, (char *)out.data, v->authorization);
    inlet_buf_reset(&out);
  }
}

/* The S3 API Reference's signing example: GET /test.txt with Range
 * bytes=0-9 on examplebucket, 2013-05-24. */
static void test_sigv4__s3_documentation_get_object(void **state) {
  (void)state;
  const char *empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  inlet_kv h[] = {{"host", "examplebucket.s3.amazonaws.com"},
                  {"range", "bytes=0-9"},
                  {"x-amz-content-sha256", empty},
                  {"x-amz-date", "20130524T000000Z"}};
  inlet_sigv4_request r = {"GET",
                           "/test.txt",
                           NULL,
                           0,
                           h,
                           4,
                           empty,
                           "20130524T000000Z",
                           "us-east-1",
                           "s3",
                           "AKIAIOSFODNN7EXAMPLE",
                           "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};
  inlet_buf out = INLET_BUF_INIT, canon = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_sigv4_authorization(&r, &out, &canon, &err), 0);
  assert_string_equal((char *)canon.data,
                      "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                      "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca4959"
                      "91b7852b855\nx-amz-date:20130524T000000Z\n\n"
                      "host;range;x-amz-content-sha256;x-amz-date\n"
                      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert_string_equal((char *)out.data,
                      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
                      "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                      "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  inlet_buf_reset(&out);
  inlet_buf_reset(&canon);
}

static void test_sign__hashes_and_encodings(void **state) {
  (void)state;
  char hex[65];
  inlet_sha256_hex("abc", 3, hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  /* RFC 4231 test case 2. */
  uint8_t mac[32];
  inlet_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, mac);
  inlet_hex(mac, 32, hex);
  assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  uint8_t md5[16];
  char mhex[33];
  inlet_md5("", 0, md5);
  inlet_hex(md5, 16, mhex);
  assert_string_equal(mhex, "d41d8cd98f00b204e9800998ecf8427e");
  inlet_buf b = INLET_BUF_INIT;
  assert_int_equal(inlet_base64_encode(&b, "foobar", 6), 0);
  inlet_buf_terminate(&b);
  assert_string_equal((char *)b.data, "Zm9vYmFy");
  inlet_buf_clear(&b);
  inlet_base64_encode(&b, "fo", 2);
  inlet_buf_terminate(&b);
  assert_string_equal((char *)b.data, "Zm8=");
  inlet_error err = INLET_ERROR_INIT;
  uint8_t *d;
  size_t n;
  assert_int_equal(inlet_base64_decode("Zm8=", &d, &n, &err), 0);
  assert_int_equal(n, 2);
  assert_memory_equal(d, "fo", 2);
  inlet_free(d);
  assert_int_equal(inlet_base64_decode("Zm9vYg==", &d, &n, &err), 0);
  assert_int_equal(n, 4);
  inlet_free(d);
  assert_int_equal(inlet_base64_decode("Zm9", &d, &n, &err), INLET_EINVAL);
  assert_int_equal(inlet_base64_decode("Zm!!", &d, &n, &err), INLET_EINVAL);
  inlet_buf_clear(&b);
  inlet_uri_encode(&b, "a b/c~d+e%", 10, true);
  inlet_buf_terminate(&b);
  assert_string_equal((char *)b.data, "a%20b/c~d%2Be%25");
  inlet_buf_clear(&b);
  inlet_uri_encode(&b, "a/b", 3, false);
  inlet_buf_terminate(&b);
  assert_string_equal((char *)b.data, "a%2Fb");
  inlet_buf_reset(&b);
  char date[17];
  inlet_amz_date(1440938160, date);
  assert_string_equal(date, "20150830T123600Z");
}

typedef struct xml_seen {
  char log[512];
} xml_seen;

static int xml_cb(void *ctx, const char *path, const char *text, size_t len, inlet_error *err) {
  (void)err;
  xml_seen *s = ctx;
  size_t n = strlen(s->log);
  snprintf(s->log + n, sizeof s->log - n, "%s=%.*s;", path, (int)len, text);
  return 0;
}

static void test_xml__walk_paths_and_escape(void **state) {
  (void)state;
  const char *doc = "<?xml version=\"1.0\"?><R xmlns=\"http://s3\"><C><K>a&amp;b</K><S>3</S></C>"
                    "<C><K>x</K></C></R>";
  xml_seen s = {""};
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_xml_walk(doc, strlen(doc), "test", xml_cb, &s, &err), 0);
  assert_string_equal(s.log, "R/C/K=a&b;R/C/S=3;R/C=;R/C/K=x;R/C=;R=;");
  assert_int_equal(inlet_xml_walk("<a><b></a>", 10, "bad.xml", xml_cb, &s, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "bad.xml"));
  inlet_buf b = INLET_BUF_INIT;
  inlet_xml_escape(&b, "<k>&\"'");
  inlet_buf_terminate(&b);
  assert_string_equal((char *)b.data, "&lt;k&gt;&amp;&quot;&apos;");
  inlet_buf_reset(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sigv4__aws_test_suite),
      cmocka_unit_test(test_sigv4__s3_documentation_get_object),
      cmocka_unit_test(test_sign__hashes_and_encodings),
      cmocka_unit_test(test_xml__walk_paths_and_escape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
