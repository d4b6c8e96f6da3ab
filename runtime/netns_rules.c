/* The transparent path's routes and rules (see netns_rules.h).  The
 * batch means, as nft(8) would read it (DNS first: a resolv.conf naming
 * 127.0.0.53 (systemd-resolved) or ::1 reaches the stub too; the filter
 * chain runs after NAT, so what was redirected has a loopback destination
 * by then):
 *
 *   table inet agentrt {
 *     chain intercept {
 *       type nat hook output priority -100; policy accept;
 *       meta l4proto tcp th dport 53 redirect to :53
 *       meta l4proto udp th dport 53 redirect to :53
 *       ip daddr 127.0.0.0/8 return
 *       ip6 daddr ::1 return
 *       meta l4proto tcp redirect to :15001
 *     }
 *     chain confine {
 *       type filter hook output priority 0; policy accept;
 *       ip daddr 127.0.0.0/8 accept
 *       ip6 daddr ::1 accept
 *       meta l4proto tcp reject with tcp reset
 *       drop
 *     }
 *   }
 *
 * in the expressions nft itself gives the kernel for that text
 * (`nft --debug=netlink`). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/fault.h"
#include "runtime/netns.h"
#include "runtime/netns_rules.h"
#include "runtime/nft_batch.h"

#define STR2(x) #x
#define STR(x) STR2 (x)

#define TABLE "agentrt"

#define NEEDS                                                                  \
  "the kernel needs nftables with NAT and REDIRECT (nf_tables, "               \
  "nft_chain_nat, nft_redir, nft_reject_inet); the policy's "                  \
  "egress.transparent false keeps proxy-only egress"

static void
table (struct nft_batch *b)
{
  nft_batch_msg (b, NFT_MSG_NEWTABLE, NFPROTO_INET, NLM_F_CREATE);
  nft_batch_put_str (b, NFTA_TABLE_NAME, TABLE);
  nft_batch_put_be32 (b, NFTA_TABLE_FLAGS, 0);
}

/* A base chain on the output hook, policy accept. */
static void
chain (struct nft_batch *b, const char *name, const char *type, int32_t priority)
{
  nft_batch_msg (b, NFT_MSG_NEWCHAIN, NFPROTO_INET, NLM_F_CREATE);
  nft_batch_put_str (b, NFTA_CHAIN_TABLE, TABLE);
  nft_batch_put_str (b, NFTA_CHAIN_NAME, name);
  nft_batch_nest (b, NFTA_CHAIN_HOOK);
  nft_batch_put_be32 (b, NFTA_HOOK_HOOKNUM, NF_INET_LOCAL_OUT);
  nft_batch_put_be32 (b, NFTA_HOOK_PRIORITY, (uint32_t) priority);
  nft_batch_nest_end (b);
  nft_batch_put_be32 (b, NFTA_CHAIN_POLICY, NF_ACCEPT);
  nft_batch_put_str (b, NFTA_CHAIN_TYPE, type);
}

/* A rule appended to `chain_name`, left open at its expressions. */
static void
rule (struct nft_batch *b, const char *chain_name)
{
  nft_batch_msg (b, NFT_MSG_NEWRULE, NFPROTO_INET, NLM_F_CREATE | NLM_F_APPEND);
  nft_batch_put_str (b, NFTA_RULE_TABLE, TABLE);
  nft_batch_put_str (b, NFTA_RULE_CHAIN, chain_name);
  nft_batch_nest (b, NFTA_RULE_EXPRESSIONS);
}

/* meta l4proto <proto> */
static void
match_l4proto (struct nft_batch *b, uint8_t proto)
{
  nft_expr_meta (b, NFT_META_L4PROTO, NFT_REG_1);
  nft_expr_cmp_eq (b, NFT_REG_1, &proto, sizeof proto);
}

/* ip daddr 127.0.0.0/8, or ip6 daddr ::1 */
static void
match_loopback (struct nft_batch *b, bool v6)
{
  static const struct in6_addr lo6 = IN6ADDR_LOOPBACK_INIT;
  static const uint8_t lo8 = 127;
  uint8_t family = v6 ? NFPROTO_IPV6 : NFPROTO_IPV4;

  nft_expr_meta (b, NFT_META_NFPROTO, NFT_REG_1);
  nft_expr_cmp_eq (b, NFT_REG_1, &family, sizeof family);
  if (v6)
    {
      nft_expr_payload (b, NFT_PAYLOAD_NETWORK_HEADER,
                        offsetof (struct ip6_hdr, ip6_dst), sizeof lo6, NFT_REG_1);
      nft_expr_cmp_eq (b, NFT_REG_1, &lo6, sizeof lo6);
    }
  else
    {
      /* the destination's first byte: /8 */
      nft_expr_payload (b, NFT_PAYLOAD_NETWORK_HEADER, offsetof (struct iphdr, daddr),
                        sizeof lo8, NFT_REG_1);
      nft_expr_cmp_eq (b, NFT_REG_1, &lo8, sizeof lo8);
    }
}

/* redirect to :port */
static void
redirect (struct nft_batch *b, uint16_t port)
{
  uint16_t be = htons (port);

  nft_expr_immediate (b, NFT_REG_1, &be, sizeof be);
  nft_expr_redir (b, NFT_REG_1);
}

/* meta l4proto <proto> th dport 53 redirect to :53 */
static void
dns_rule (struct nft_batch *b, uint8_t proto)
{
  uint16_t dport = htons (53);

  rule (b, "intercept");
  match_l4proto (b, proto);
  nft_expr_payload (b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, sizeof dport, NFT_REG_1);
  nft_expr_cmp_eq (b, NFT_REG_1, &dport, sizeof dport);
  redirect (b, EGRESS_DNS_PORT);
  nft_batch_nest_end (b);
}

/* <match loopback> <verdict> */
static void
loopback_rule (struct nft_batch *b, const char *chain_name, bool v6, int32_t verdict)
{
  rule (b, chain_name);
  match_loopback (b, v6);
  nft_expr_verdict (b, verdict);
  nft_batch_nest_end (b);
}

long
netns_rules_batch (void *buf, size_t cap, uint32_t seq,
                   const char *what[NETNS_RULES_MESSAGES])
{
  static const char *const names[NETNS_RULES_MESSAGES] = {
    "table inet " TABLE,
    "chain intercept (type nat hook output priority -100)",
    "rule `meta l4proto tcp th dport 53 redirect to :" STR (EGRESS_DNS_PORT) "`",
    "rule `meta l4proto udp th dport 53 redirect to :" STR (EGRESS_DNS_PORT) "`",
    "rule `ip daddr 127.0.0.0/8 return`",
    "rule `ip6 daddr ::1 return`",
    "rule `meta l4proto tcp redirect to :" STR (EGRESS_TRANSPARENT_PORT) "`",
    "chain confine (type filter hook output priority 0)",
    "rule `ip daddr 127.0.0.0/8 accept`",
    "rule `ip6 daddr ::1 accept`",
    "rule `meta l4proto tcp reject with tcp reset`",
    "rule `drop`",
  };
  struct nft_batch b;

  memcpy (what, names, sizeof names);
  nft_batch_init (&b, buf, cap, seq);
  table (&b);
  chain (&b, "intercept", "nat", -100);
  dns_rule (&b, IPPROTO_TCP);
  dns_rule (&b, IPPROTO_UDP);
  loopback_rule (&b, "intercept", false, NFT_RETURN);
  loopback_rule (&b, "intercept", true, NFT_RETURN);
  rule (&b, "intercept");
  match_l4proto (&b, IPPROTO_TCP);
  redirect (&b, EGRESS_TRANSPARENT_PORT);
  nft_batch_nest_end (&b);
  chain (&b, "confine", "filter", 0);
  loopback_rule (&b, "confine", false, NF_ACCEPT);
  loopback_rule (&b, "confine", true, NF_ACCEPT);
  rule (&b, "confine");
  match_l4proto (&b, IPPROTO_TCP);
  nft_expr_reject_tcp_rst (&b);
  nft_batch_nest_end (&b);
  rule (&b, "confine");
  nft_expr_verdict (&b, NF_DROP);
  nft_batch_nest_end (&b);
  return nft_batch_finish (&b);
}

/* Sends the batch and reads every acknowledgement the kernel queued while
 * it ran the batch (in sendto itself): 0 with *error the first refusal's
 * errno (0 when none) and *error_seq its message, or -errno when the
 * socket failed or acknowledgements are missing. */
static int
send_batch (const void *buf, size_t len, uint32_t first, uint32_t last,
            int *error, uint32_t *error_seq)
{
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  unsigned char reply[4096];
  unsigned acked = 0;
  int fd, one = 1, r = 0;
  ssize_t n;

  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
  if (fd < 0)
    return -errno;
  /* refusals without a copy of the message refused */
  (void) setsockopt (fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof one);
  if (sendto (fd, buf, len, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0)
    r = -errno;
  while (r == 0)
    {
      n = recv (fd, reply, sizeof reply, MSG_DONTWAIT);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          if (errno != EAGAIN && errno != EWOULDBLOCK)
            r = -errno;
          break;
        }
      r = nft_batch_read_acks (reply, (size_t) n, first, last, &acked, error, error_seq);
    }
  close (fd);
  if (r == 0 && *error == 0 && acked < last - first)
    r = -EPROTO;
  return r;
}

static int
load_rules (struct child_error *cerr)
{
  unsigned char buf[4096];
  const char *what[NETNS_RULES_MESSAGES];
  uint32_t seq = 1, error_seq = 0;
  int error = 0, r;
  long len;

  len = netns_rules_batch (buf, sizeof buf, seq, what);
  if (len < 0)
    return child_error (cerr, (int) -len, "transparent egress: nftables rules: "
                        "building the batch");
  /* the fault: the answer of a kernel without nft_chain_nat, which refuses
   * the nat chain (its first message after the table) */
  if (fault_fail ("netns:nft-rules") < 0)
    r = 0, error = errno, error_seq = seq + 2;
  else
    r = send_batch (buf, (size_t) len, seq, seq + NETNS_RULES_MESSAGES, &error,
                    &error_seq);
  if (r < 0)
    return child_error (cerr, -r, "transparent egress: nftables rules in the "
                        "agent's network namespace: sending them on a netfilter "
                        "netlink socket (" NEEDS ")");
  if (error == 0)
    return 0;
  /* the batch as a whole (its commit) is acknowledged with its begin's number */
  cerr->status = error;
  snprintf (cerr->msg, sizeof cerr->msg, "transparent egress: nftables rules in "
            "the agent's network namespace: %s: %s (" NEEDS ")",
            error_seq > seq ? what[error_seq - seq - 1] : "the batch",
            strerror (error));
  return -1;
}

int
netns_rules_install (struct child_error *cerr)
{
  if (netns_default_routes (cerr) < 0)
    return -1;
  return load_rules (cerr);
}
