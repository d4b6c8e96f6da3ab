/* The name-service configuration the proxy reads once at startup, before
 * it loses all filesystem access: nameservers and options from
 * resolv.conf, and the hosts file, which is consulted before DNS.  Pure
 * code over the files' contents. */
#ifndef AGENTRT_EGRESS_NAMECONF_H
#define AGENTRT_EGRESS_NAMECONF_H

#include <stddef.h>

#include "netaddr.h"

#define RESOLV_MAX_NS 3
/* Bytes of each file that are read; the rest is ignored. */
#define NAMECONF_FILE_MAX (1024 * 1024)

struct resolv_conf
{
  struct netaddr ns[RESOLV_MAX_NS];
  size_t nns;
  unsigned timeout_s; /* per attempt, `options timeout:N` (default 5, 1-30) */
  unsigned attempts;  /* rounds over all servers, `options attempts:N` (default 2, 1-5) */
};

/* Parses resolv.conf text.  Without any usable nameserver the result is
 * 127.0.0.1, as with the C library. */
void resolv_conf_parse (const char *text, size_t len, struct resolv_conf *rc);

/* Looks name (host_parse'd) up in hosts-file text; stores at most max
 * addresses (IPv4 first) and returns how many were found. */
size_t hosts_lookup (const char *text, size_t len, const char *name,
                     struct netaddr *out, size_t max);

#endif
