/*
 * client — where a request comes from, decided from bytes the client sends.
 *
 * Two questions, answered by pure functions over strings (so they are unit
 * tested without a server; docs/operations.md explains the policy):
 *   - the client's address: the TCP peer, or, when the peer is a trusted
 *     reverse proxy, the address that proxy appended to X-Forwarded-For;
 *   - whether a browser's Origin header names this server: the configured
 *     public URL's origin, or else the origin the Host header implies.
 */
#ifndef ATTNJUDGE_SERVER_CLIENT_H
#define ATTNJUDGE_SERVER_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#define CLIENT_ADDR_LEN 64    /* >= INET6_ADDRSTRLEN */
#define CLIENT_ORIGIN_LEN 300 /* "https://" + host + ":65535" */
#define CLIENT_MAX_PROXIES 8

/* An address block: an IPv4 or IPv6 address and a prefix length. */
struct client_net {
    int family;             /* AF_INET or AF_INET6 */
    unsigned char addr[16]; /* network byte order; 4 bytes used for IPv4 */
    int bits;               /* prefix length */
};

/* The reverse proxies whose X-Forwarded-For is believed; n = 0: none. */
struct client_proxies {
    int n;
    struct client_net nets[CLIENT_MAX_PROXIES];
};

/* Parses a list of addresses or CIDR blocks separated by commas or spaces
 * ("127.0.0.1", "10.0.0.0/8, ::1"); "" is the empty list. IPv4-mapped IPv6
 * addresses are taken as IPv4. Returns 0, or -1 with a message in err. */
int client_proxies_parse(const char *spec, struct client_proxies *out, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The client address of a request, canonical text (inet_ntop; IPv4-mapped
 * IPv6 as IPv4) in out. peer is the TCP peer; xff[0..n_xff) are the request's
 * X-Forwarded-For header values in the order received. Unless peer is in
 * proxies, the result is peer and xff is ignored. Otherwise the header's
 * entries are read right to left, skipping trusted proxies: the first other
 * address is the client (the leftmost entry when all are proxies); no
 * header, an empty or malformed entry (anything but a bare IP literal)
 * before it gives peer. A peer that is not an IP literal is copied as is. */
void client_address(const struct client_proxies *proxies, const char *peer, const char *const *xff,
                    size_t n_xff, char out[CLIENT_ADDR_LEN]);

/* Parses an http or https URL ("https://judge.example.edu/",
 * "http://[::1]:8080") into its origin, "scheme://host[:port]" with scheme
 * and host in lower case and the scheme's default port left out. A path is
 * allowed only with allow_path. Returns 0, or -1 if url is not such a URL
 * (no user info, no empty host, port 1 to 65535). */
int client_origin_of(const char *url, bool allow_path, char out[CLIENT_ORIGIN_LEN])
    __attribute__((warn_unused_result));

/* True if origin (an Origin header, NULL if absent) names this server. With
 * a public_url (non-empty), origin must be that URL's origin exactly;
 * otherwise origin's host and port must be those of the Host header (host,
 * NULL if absent), the scheme being taken from origin. "null", a missing
 * header or a malformed one is never the same origin. */
bool client_origin_same(const char *origin, const char *host, const char *public_url);

/* True when addr (a client address in the form client_address gives) is a
 * loopback address: 127.0.0.0/8 or ::1. */
bool client_is_loopback(const char *addr);

#endif
