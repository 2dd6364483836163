/*
 * Unit tests of server/lti_http, the one way the tool talks to an LMS:
 * against a one-connection HTTP server on loopback (a thread of this
 * test), what is sent (method, bearer token, Accept, a POST's body and
 * type) and what is read back (status, body, Retry-After, a Link's
 * rel="next"); that a redirect is returned, never followed; that an
 * answer over the limit fails the request with its own message; and that
 * a platform that does not answer, or answers too slowly, is a failure
 * that names no token.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>

#include "server/lti_http.h"

/* One canned exchange: the server accepts one connection, reads the
 * request (headers and a Content-Length body), keeps it, and writes
 * answer (or, with answer NULL, waits for the client to give up). */
struct exchange {
    int listener;
    int port;
    const char *answer;
    char request[8192];
    pthread_t thread;
};

static void *serve_one(void *arg)
{
    struct exchange *x = arg;
    struct pollfd p = {.fd = x->listener, .events = POLLIN};
    if (poll(&p, 1, 5000) != 1) /* bounded: a client that never came */
        return NULL;
    int fd = accept(x->listener, NULL, NULL);
    if (fd < 0)
        return NULL;
    size_t len = 0;
    for (;;) {
        struct pollfd q = {.fd = fd, .events = POLLIN};
        if (poll(&q, 1, 5000) != 1)
            break;
        ssize_t n = read(fd, x->request + len, sizeof x->request - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        x->request[len] = '\0';
        const char *end = strstr(x->request, "\r\n\r\n");
        const char *cl = strcasestr(x->request, "Content-Length:");
        if (end && (!cl || cl > end || len >= (size_t)(end + 4 - x->request) + atol(cl + 15)))
            break;
    }
    if (x->answer) {
        size_t off = 0, total = strlen(x->answer);
        while (off < total) {
            ssize_t n = write(fd, x->answer + off, total - off);
            if (n <= 0)
                break;
            off += (size_t)n;
        }
    } else {
        /* no answer: hold the connection until the client hangs up */
        struct pollfd q = {.fd = fd, .events = POLLIN};
        char buf[64];
        while (poll(&q, 1, 5000) == 1 && read(fd, buf, sizeof buf) > 0) {
        }
    }
    close(fd);
    return NULL;
}

/* a listener on a free loopback port, and the thread that will serve it */
static void start(struct exchange *x, const char *answer)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    memset(x, 0, sizeof *x);
    x->answer = answer;
    x->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(x->listener >= 0);
    assert_int_equal(bind(x->listener, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(x->listener, 1), 0);
    assert_int_equal(getsockname(x->listener, (struct sockaddr *)&a, &alen), 0);
    x->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&x->thread, NULL, serve_one, x), 0);
}

static void finish(struct exchange *x)
{
    pthread_join(x->thread, NULL);
    close(x->listener);
}

static void url_of(const struct exchange *x, const char *path, char *out, size_t len)
{
    snprintf(out, len, "http://127.0.0.1:%d%s", x->port, path);
}

static void test_get_with_token(void **state)
{
    struct exchange x;
    struct lti_reply r;
    char url[128];
    (void)state;
    start(&x, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nRetry-After: 30\r\n"
              "Link: <http://lms.example/members?page=1>; rel=\"prev\", "
              "<http://lms.example/members?page=3>; rel=\"next\"\r\n"
              "Connection: close\r\n\r\nhello");
    url_of(&x, "/members", url, sizeof url);
    const struct lti_request q = {.method = "GET",
                                  .url = url,
                                  .bearer = "tok-123",
                                  .accept =
                                      "application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
                                  .max_bytes = 1024,
                                  .timeout_ms = 5000};
    assert_int_equal(lti_http(&q, &r), 0);
    finish(&x);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "hello");
    assert_int_equal(r.len, 5);
    assert_int_equal(r.retry_after_s, 30);
    assert_string_equal(r.next, "http://lms.example/members?page=3");
    assert_non_null(strstr(x.request, "GET /members HTTP/1.1\r\n"));
    assert_non_null(strstr(x.request, "\r\nAuthorization: Bearer tok-123\r\n"));
    assert_non_null(strstr(
        x.request, "\r\nAccept: application/vnd.ims.lti-nrps.v2.membershipcontainer+json\r\n"));
    assert_non_null(strstr(x.request, "\r\nUser-Agent: attnjudge-lti\r\n"));
    lti_reply_free(&r);
}

static void test_post_body_no_token(void **state)
{
    struct exchange x;
    struct lti_reply r;
    char url[128];
    (void)state;
    start(&x, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    url_of(&x, "/token", url, sizeof url);
    const struct lti_request q = {.method = "POST",
                                  .url = url,
                                  .ctype = "application/x-www-form-urlencoded",
                                  .body = "grant_type=client_credentials&scope=s",
                                  .max_bytes = 1024,
                                  .timeout_ms = 5000};
    assert_int_equal(lti_http(&q, &r), 0);
    finish(&x);
    assert_int_equal(r.status, 201);
    assert_non_null(r.body); /* an empty body is "", never NULL */
    assert_string_equal(r.body, "");
    assert_int_equal(r.retry_after_s, 0);
    assert_string_equal(r.next, "");
    assert_non_null(strstr(x.request, "POST /token HTTP/1.1\r\n"));
    assert_non_null(strstr(x.request, "\r\nContent-Type: application/x-www-form-urlencoded\r\n"));
    assert_non_null(strstr(x.request, "\r\n\r\ngrant_type=client_credentials&scope=s"));
    assert_null(strstr(x.request, "Authorization:"));
    assert_non_null(strstr(x.request, "\r\nAccept: */*\r\n")); /* none asked for: any */
    lti_reply_free(&r);
}

/* a token must not travel to a host the platform did not name */
static void test_redirect_not_followed(void **state)
{
    struct exchange x;
    struct lti_reply r;
    char url[128];
    (void)state;
    start(&x, "HTTP/1.1 302 Found\r\nLocation: http://elsewhere.example/steal\r\n"
              "Content-Length: 0\r\nConnection: close\r\n\r\n");
    url_of(&x, "/scores", url, sizeof url);
    const struct lti_request q = {
        .method = "GET", .url = url, .bearer = "tok", .max_bytes = 1024, .timeout_ms = 5000};
    assert_int_equal(lti_http(&q, &r), 0);
    finish(&x);
    assert_int_equal(r.status, 302);
    lti_reply_free(&r);
}

static void test_answer_over_the_limit(void **state)
{
    struct exchange x;
    struct lti_reply r;
    char url[128], answer[512];
    (void)state;
    snprintf(answer, sizeof answer,
             "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n%0100d", 7);
    start(&x, answer);
    url_of(&x, "/jwks", url, sizeof url);
    const struct lti_request q = {.method = "GET", .url = url, .max_bytes = 10, .timeout_ms = 5000};
    assert_int_equal(lti_http(&q, &r), -1);
    finish(&x);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "the answer is larger than 10 bytes");
    lti_reply_free(&r);
}

static void test_no_answer(void **state)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    struct lti_reply r;
    char url[128];
    (void)state;
    /* a port bound and let go, never listened on: connection refused */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
    close(fd);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(a.sin_port));
    const struct lti_request q = {.method = "GET",
                                  .url = url,
                                  .bearer = "secret-token",
                                  .max_bytes = 1024,
                                  .timeout_ms = 5000};
    assert_int_equal(lti_http(&q, &r), -1);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, curl_easy_strerror(CURLE_COULDNT_CONNECT));
    assert_null(strstr(r.err, "secret-token"));
    lti_reply_free(&r);
}

static void test_too_slow(void **state)
{
    struct exchange x;
    struct lti_reply r;
    char url[128];
    (void)state;
    start(&x, NULL); /* reads the request, never answers */
    url_of(&x, "/slow", url, sizeof url);
    const struct lti_request q = {.method = "GET",
                                  .url = url,
                                  .bearer = "secret-token",
                                  .max_bytes = 1024,
                                  .timeout_ms = 300};
    assert_int_equal(lti_http(&q, &r), -1);
    finish(&x);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, curl_easy_strerror(CURLE_OPERATION_TIMEDOUT));
    lti_reply_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_with_token),
        cmocka_unit_test(test_post_body_no_token),
        cmocka_unit_test(test_redirect_not_followed),
        cmocka_unit_test(test_answer_over_the_limit),
        cmocka_unit_test(test_no_answer),
        cmocka_unit_test(test_too_slow),
    };
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return failed;
}
