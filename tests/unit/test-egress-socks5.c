/* Unit tests of runtime/egress/socks5.c: malformed and refused requests
 * first, then byte-at-a-time input and valid requests. */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "runtime/egress/socks5.h"
#include "tests/unit/unit.h"

static int
request (const uint8_t *b, size_t n, struct socks5_request *r, uint8_t *reply,
         const char **reason)
{
  size_t used;
  return socks5_parse_request (b, n, r, &used, reply, reason);
}

static void
test_greeting (void)
{
  static const uint8_t v4[] = { 4, 1, 0 }, none[] = { 5, 0 }, auth[] = { 5, 1, 2 },
                       ok[] = { 5, 2, 2, 0 };
  size_t used = 0;
  bool no_auth;

  CHECK (socks5_parse_greeting (v4, sizeof (v4), &used, &no_auth) == SOCKS5_PARSE_ERROR);
  CHECK (socks5_parse_greeting (none, sizeof (none), &used, &no_auth) == SOCKS5_PARSE_ERROR);
  CHECK (socks5_parse_greeting (auth, sizeof (auth), &used, &no_auth) == SOCKS5_PARSE_DONE);
  CHECK (!no_auth);
  for (size_t i = 0; i < sizeof (ok); i++)
    CHECK (socks5_parse_greeting (ok, i, &used, &no_auth) == SOCKS5_PARSE_MORE);
  CHECK (socks5_parse_greeting (ok, sizeof (ok), &used, &no_auth) == SOCKS5_PARSE_DONE);
  CHECK (no_auth && used == 4);
}

static void
test_refused (void)
{
  static const uint8_t bind[] = { 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 };
  static const uint8_t udp[] = { 5, 3, 0, 1, 1, 2, 3, 4, 0, 80 };
  static const uint8_t ver[] = { 4, 1, 0, 1, 1, 2, 3, 4, 0, 80 };
  static const uint8_t rsv[] = { 5, 1, 1, 1, 1, 2, 3, 4, 0, 80 };
  static const uint8_t atyp[] = { 5, 1, 0, 9, 1, 2, 3, 4, 0, 80 };
  static const uint8_t port0[] = { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 };
  static const uint8_t empty[] = { 5, 1, 0, 3, 0, 0, 80 };
  static const uint8_t numeric[] = { 5, 1, 0, 3, 10, '2', '1', '3', '0', '7', '0', '6', '4', '3', '3', 0, 80 };
  static const uint8_t nul[] = { 5, 1, 0, 3, 5, 'a', 0, '.', 'c', 'o', 0, 80 };
  static const uint8_t zone[] = { 5, 1, 0, 3, 11, 'f', 'e', '8', '0', ':', ':', '1', '%', 'l', 'o', '0', 0, 80 };
  struct socks5_request r;
  uint8_t reply = 0;
  const char *reason = NULL;

  CHECK (request (bind, 2, &r, &reply, &reason) == SOCKS5_PARSE_ERROR && reply == SOCKS5_BAD_COMMAND);
  CHECK (request (udp, sizeof (udp), &r, &reply, &reason) == SOCKS5_PARSE_ERROR
         && reply == SOCKS5_BAD_COMMAND);
  CHECK_STR_EQ (reason, "unsupported-command");
  CHECK (request (ver, sizeof (ver), &r, &reply, &reason) == SOCKS5_PARSE_ERROR);
  CHECK (request (rsv, sizeof (rsv), &r, &reply, &reason) == SOCKS5_PARSE_ERROR);
  CHECK (request (atyp, sizeof (atyp), &r, &reply, &reason) == SOCKS5_PARSE_ERROR
         && reply == SOCKS5_BAD_ADDRESS_TYPE);
  CHECK (request (port0, sizeof (port0), &r, &reply, &reason) == SOCKS5_PARSE_ERROR);
  CHECK (request (empty, sizeof (empty), &r, &reply, &reason) == SOCKS5_PARSE_ERROR);
  CHECK (request (numeric, sizeof (numeric), &r, &reply, &reason) == SOCKS5_PARSE_ERROR
         && reply == SOCKS5_NOT_ALLOWED);
  CHECK_STR_EQ (reason, "numeric-ip-form");
  CHECK (request (nul, sizeof (nul), &r, &reply, &reason) == SOCKS5_PARSE_ERROR
         && reply == SOCKS5_NOT_ALLOWED);
  CHECK (request (zone, sizeof (zone), &r, &reply, &reason) == SOCKS5_PARSE_ERROR);
}

static void
test_valid (void)
{
  static const uint8_t name[] = { 5, 1, 0, 3, 12, 'E', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm', '.', 0x01, 0xbb };
  static const uint8_t v4[] = { 5, 1, 0, 1, 203, 0, 113, 7, 0, 80 };
  static const uint8_t v6[] = { 5, 1, 0, 4, 0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x1f, 0x90 };
  struct socks5_request r;
  uint8_t reply, out[SOCKS5_REPLY_LEN];
  const char *reason;
  size_t used;

  for (size_t i = 0; i < sizeof (name); i++)
    CHECK (request (name, i, &r, &reply, &reason) == SOCKS5_PARSE_MORE);
  CHECK (socks5_parse_request (name, sizeof (name), &r, &used, &reply, &reason) == SOCKS5_PARSE_DONE);
  CHECK (used == sizeof (name) && !r.host.is_addr && r.port == 443);
  CHECK_STR_EQ (r.host.name, "example.com");
  CHECK (request (v4, sizeof (v4), &r, &reply, &reason) == SOCKS5_PARSE_DONE);
  CHECK (r.host.is_addr && r.host.addr.family == AF_INET && r.port == 80);
  CHECK (request (v6, sizeof (v6), &r, &reply, &reason) == SOCKS5_PARSE_DONE);
  CHECK (r.host.is_addr && r.host.addr.family == AF_INET6 && r.port == 8080);
  socks5_reply (out, SOCKS5_NOT_ALLOWED);
  CHECK (out[0] == 5 && out[1] == 2 && out[3] == 1);
}

int
main (void)
{
  RUN_TEST (test_greeting);
  RUN_TEST (test_refused);
  RUN_TEST (test_valid);
  return UNIT_EXIT ();
}
