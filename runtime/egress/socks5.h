/* SOCKS5 (RFC 1928) as far as the egress proxy speaks it: the method
 * greeting (only "no authentication" is accepted) and the request (CONNECT
 * only, to an IPv4, IPv6 or domain-name address).  Pure code. */
#ifndef AGENTRT_EGRESS_SOCKS5_H
#define AGENTRT_EGRESS_SOCKS5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netaddr.h"

/* Reply codes used. */
#define SOCKS5_OK 0x00
#define SOCKS5_FAILURE 0x01
#define SOCKS5_NOT_ALLOWED 0x02
#define SOCKS5_HOST_UNREACHABLE 0x04
#define SOCKS5_REFUSED 0x05
#define SOCKS5_TTL_EXPIRED 0x06
#define SOCKS5_BAD_COMMAND 0x07
#define SOCKS5_BAD_ADDRESS_TYPE 0x08

/* Length of every reply the proxy sends (the bound address is 0.0.0.0:0). */
#define SOCKS5_REPLY_LEN 10

struct socks5_request
{
  struct host host;
  uint16_t port;
};

/* Return values of the parsers, like the HTTP ones. */
enum
{
  SOCKS5_PARSE_ERROR = -1,
  SOCKS5_PARSE_MORE = 0,
  SOCKS5_PARSE_DONE = 1,
};

/* Parses the greeting (VER NMETHODS METHODS...).  On DONE *consumed is its
 * length and *no_auth says whether method 0 was offered. */
int socks5_parse_greeting (const uint8_t *buf, size_t len, size_t *consumed,
                           bool *no_auth);

/* Parses a request (VER CMD RSV ATYP DST.ADDR DST.PORT).  On ERROR
 * *reply is the code to answer with and *reason a short reason; the
 * connection is then closed. */
int socks5_parse_request (const uint8_t *buf, size_t len, struct socks5_request *req,
                          size_t *consumed, uint8_t *reply, const char **reason);

/* Writes a reply with the given code into out (SOCKS5_REPLY_LEN bytes). */
void socks5_reply (uint8_t *out, uint8_t code);

#endif
