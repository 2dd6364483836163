/*
 * client — who a request comes from: its address and its origin (client.h).
 *
 * Client address. Behind a reverse proxy every TCP peer is the proxy, so a
 * per-address limit keyed on the peer would put every user in one bucket.
 * X-Forwarded-For is a list the client starts and every proxy extends on
 * the right ("client, proxy1, proxy2"): only the entries appended by proxies
 * we trust are trustworthy, so the list is read from the right, skipping
 * trusted proxies, and the first other entry is the client. Anything a
 * client wrote to the left of it is ignored, which is what stops a forged
 * header from choosing the rate-limit key. Without a trusted peer the header
 * is ignored altogether. A malformed entry met before the client falls back
 * to the peer rather than guessing. Addresses are canonicalised
 * (inet_pton/inet_ntop), so "2001:DB8::1" and "2001:db8:0::1" are one key.
 *
 * Origin. Browsers send Origin on every cross-origin request and on
 * same-origin fetches that are not GET or HEAD; its value is
 * scheme://host[:port] or "null". The server cannot know its own public
 * scheme and name behind a proxy, hence the public URL setting; without it
 * the Host header stands for our name (a page on another site cannot make
 * the browser send our cookie with a Host that is that site's name: cookies
 * are scoped to our host).
 */
#include "server/client.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* Parses an IP literal of len bytes, trimmed of blanks. IPv4-mapped IPv6
 * becomes IPv4. Returns 0 or -1. */
static int parse_ip(const char *s, size_t len, struct client_net *ip)
{
    char buf[CLIENT_ADDR_LEN];
    while (len > 0 && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    memset(ip, 0, sizeof *ip);
    if (inet_pton(AF_INET, buf, ip->addr) == 1) {
        ip->family = AF_INET;
        ip->bits = 32;
        return 0;
    }
    if (inet_pton(AF_INET6, buf, ip->addr) != 1)
        return -1;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (!memcmp(ip->addr, mapped, sizeof mapped)) {
        memmove(ip->addr, ip->addr + 12, 4);
        memset(ip->addr + 4, 0, 12);
        ip->family = AF_INET;
        ip->bits = 32;
        return 0;
    }
    ip->family = AF_INET6;
    ip->bits = 128;
    return 0;
}

static void ip_text(const struct client_net *ip, char out[CLIENT_ADDR_LEN])
{
    if (!inet_ntop(ip->family, ip->addr, out, CLIENT_ADDR_LEN))
        out[0] = '\0';
}

static bool in_net(const struct client_net *net, const struct client_net *ip)
{
    if (net->family != ip->family)
        return false;
    int full = net->bits / 8, rest = net->bits % 8;
    if (memcmp(net->addr, ip->addr, (size_t)full))
        return false;
    if (rest == 0)
        return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (net->addr[full] & mask) == (ip->addr[full] & mask);
}

static bool is_proxy(const struct client_proxies *p, const struct client_net *ip)
{
    for (int i = 0; i < p->n; i++)
        if (in_net(&p->nets[i], ip))
            return true;
    return false;
}

int client_proxies_parse(const char *spec, struct client_proxies *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *s = spec;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == ',')
            s++;
        if (*s == '\0')
            return 0;
        size_t len = strcspn(s, " \t,");
        if (out->n == CLIENT_MAX_PROXIES) {
            snprintf(err, errlen, "at most %d addresses or blocks", CLIENT_MAX_PROXIES);
            return -1;
        }
        const char *slash = memchr(s, '/', len);
        struct client_net *net = &out->nets[out->n];
        if (parse_ip(s, slash ? (size_t)(slash - s) : len, net) < 0) {
            snprintf(err, errlen, "'%.*s' is not an IP address or CIDR block", (int)len, s);
            return -1;
        }
        if (slash) {
            char *end;
            long bits = strtol(slash + 1, &end, 10);
            int max = net->family == AF_INET ? 32 : 128;
            if (end != s + len || end == slash + 1 || !isdigit((unsigned char)slash[1]) ||
                bits < 0 || bits > max) {
                snprintf(err, errlen, "'%.*s': the prefix length must be 0 to %d", (int)len, s,
                         max);
                return -1;
            }
            net->bits = (int)bits;
        }
        out->n++;
        s += len;
    }
}

/* Reads one X-Forwarded-For value right to left. Returns -1 on a malformed
 * entry, 1 when *ip is the client (not a proxy), 0 when every entry was a
 * proxy (*ip is then the leftmost). */
static int scan_forwarded(const struct client_proxies *p, const char *v, struct client_net *ip)
{
    size_t end = strlen(v);
    for (;;) {
        size_t start = end;
        while (start > 0 && v[start - 1] != ',')
            start--;
        if (parse_ip(v + start, end - start, ip) < 0)
            return -1;
        if (!is_proxy(p, ip))
            return 1;
        if (start == 0)
            return 0;
        end = start - 1;
    }
}

void client_address(const struct client_proxies *proxies, const char *peer, const char *const *xff,
                    size_t n_xff, char out[CLIENT_ADDR_LEN])
{
    struct client_net ip, found;
    if (parse_ip(peer, strlen(peer), &ip) < 0) {
        snprintf(out, CLIENT_ADDR_LEN, "%s", peer);
        return;
    }
    ip_text(&ip, out);
    if (!is_proxy(proxies, &ip) || n_xff == 0)
        return;
    /* Proxies that add a header line instead of extending the last one put
     * the newest entries in the last line: read the lines last to first. */
    for (size_t i = n_xff; i-- > 0;) {
        int rc = scan_forwarded(proxies, xff[i], &found);
        if (rc < 0)
            return; /* malformed: the peer */
        if (rc == 1 || i == 0) {
            ip_text(&found, out);
            return;
        }
    }
}

int client_origin_of(const char *url, bool allow_path, char out[CLIENT_ORIGIN_LEN])
{
    const char *scheme, *def_port, *s;
    if (!strncasecmp(url, "http://", 7)) {
        scheme = "http", def_port = "80", s = url + 7;
    } else if (!strncasecmp(url, "https://", 8)) {
        scheme = "https", def_port = "443", s = url + 8;
    } else {
        return -1;
    }
    size_t auth_len = strcspn(s, "/?#");
    if (!allow_path && s[auth_len] != '\0')
        return -1;
    if (allow_path && s[auth_len] != '\0' && s[auth_len] != '/')
        return -1; /* a query or fragment right after the host */
    const char *host = s, *port = NULL;
    size_t host_len;
    if (*s == '[') {
        const char *close = memchr(s, ']', auth_len);
        if (!close)
            return -1;
        host_len = (size_t)(close - s) + 1;
        char v6[CLIENT_ADDR_LEN];
        unsigned char bin[16];
        if (host_len - 2 >= sizeof v6)
            return -1;
        memcpy(v6, s + 1, host_len - 2);
        v6[host_len - 2] = '\0';
        if (inet_pton(AF_INET6, v6, bin) != 1)
            return -1;
    } else {
        host_len = strcspn(s, ":/?#");
        if (host_len > auth_len)
            host_len = auth_len;
        for (size_t i = 0; i < host_len; i++)
            if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-')
                return -1; /* user info, percent escapes, anything odd */
    }
    if (host_len == 0)
        return -1;
    if (host_len < auth_len) {
        if (s[host_len] != ':')
            return -1;
        port = s + host_len + 1;
        size_t port_len = auth_len - host_len - 1;
        if (port_len == 0 || port_len > 5)
            return -1;
        long v = 0;
        for (size_t i = 0; i < port_len; i++) {
            if (!isdigit((unsigned char)port[i]))
                return -1;
            v = v * 10 + (port[i] - '0');
        }
        if (v < 1 || v > 65535)
            return -1;
        char num[8];
        snprintf(num, sizeof num, "%ld", v);
        port = strcmp(num, def_port) ? port : NULL;
    }
    if (host_len > CLIENT_ORIGIN_LEN - 16)
        return -1;
    int n = snprintf(out, CLIENT_ORIGIN_LEN, "%s://%.*s", scheme, (int)host_len, host);
    for (int i = (int)strlen(scheme) + 3; i < n; i++)
        out[i] = (char)tolower((unsigned char)out[i]);
    if (port) {
        /* Leading zeros would make two spellings of one port. */
        while (*port == '0')
            port++;
        snprintf(out + n, CLIENT_ORIGIN_LEN - (size_t)n, ":%.*s",
                 (int)(auth_len - (size_t)(port - s)), port);
    }
    return 0;
}

bool client_origin_same(const char *origin, const char *host, const char *public_url)
{
    char got[CLIENT_ORIGIN_LEN], want[CLIENT_ORIGIN_LEN];
    if (!origin || client_origin_of(origin, false, got) < 0)
        return false;
    if (public_url && *public_url) {
        if (client_origin_of(public_url, true, want) < 0)
            return false;
        return !strcmp(got, want);
    }
    if (!host || !*host)
        return false;
    /* The Host header carries no scheme: take the Origin's, so that the
     * default port is dropped the same way on both sides. */
    char url[CLIENT_ORIGIN_LEN];
    const char *scheme_end = strstr(got, "://");
    int n = snprintf(url, sizeof url, "%.*s%s", (int)(scheme_end - got + 3), got, host);
    if (n < 0 || (size_t)n >= sizeof url || client_origin_of(url, false, want) < 0)
        return false;
    return !strcmp(got, want);
}

bool client_is_loopback(const char *addr)
{
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, addr, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, addr, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}
