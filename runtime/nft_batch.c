/* nf_tables batches and their acknowledgements (see nft_batch.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <string.h>

#include "runtime/nft_batch.h"

/* Room for n more bytes (aligned), zeroed, or NULL with the batch broken. */
static unsigned char *
reserve (struct nft_batch *b, size_t n)
{
  size_t aligned = NLMSG_ALIGN (n);
  unsigned char *p;

  if (b->broken)
    return NULL;
  if (aligned < n || aligned > b->cap - b->len)
    {
      b->full = b->broken = true;
      return NULL;
    }
  p = b->buf + b->len;
  memset (p, 0, aligned);
  b->len += aligned;
  return p;
}

/* A message of `type` with its nfgenmsg; its length is set when closed. */
static uint32_t
open_msg (struct nft_batch *b, uint16_t type, uint16_t flags, uint8_t family,
          uint16_t res_id)
{
  size_t at = b->len;
  unsigned char *p = reserve (b, NLMSG_HDRLEN + sizeof (struct nfgenmsg));
  uint32_t seq = b->seq++;
  struct nlmsghdr h = { 0 };
  struct nfgenmsg g = { 0 };

  if (p == NULL)
    return seq;
  h.nlmsg_len = NLMSG_HDRLEN + sizeof g;
  h.nlmsg_type = type;
  h.nlmsg_flags = flags;
  h.nlmsg_seq = seq;
  g.nfgen_family = family;
  g.version = NFNETLINK_V0;
  g.res_id = htons (res_id);
  memcpy (p, &h, sizeof h);
  memcpy (p + NLMSG_HDRLEN, &g, sizeof g);
  b->msg = at;
  b->open = true;
  return seq;
}

static void
close_msg (struct nft_batch *b)
{
  uint32_t len;

  if (!b->open)
    return;
  b->open = false;
  if (b->depth != 0)
    b->broken = true;
  if (b->broken)
    return;
  len = (uint32_t) (b->len - b->msg);
  memcpy (b->buf + b->msg + offsetof (struct nlmsghdr, nlmsg_len), &len, sizeof len);
}

void
nft_batch_init (struct nft_batch *b, void *buf, size_t cap, uint32_t seq)
{
  memset (b, 0, sizeof *b);
  b->buf = buf;
  b->cap = buf ? cap : 0;
  b->seq = seq;
  open_msg (b, NFNL_MSG_BATCH_BEGIN, NLM_F_REQUEST, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);
  close_msg (b);
}

uint32_t
nft_batch_msg (struct nft_batch *b, uint16_t type, uint8_t family, uint16_t flags)
{
  close_msg (b);
  return open_msg (b, (uint16_t) (NFNL_SUBSYS_NFTABLES << 8 | type),
                   (uint16_t) (NLM_F_REQUEST | NLM_F_ACK | flags), family, 0);
}

void
nft_batch_put (struct nft_batch *b, uint16_t type, const void *data, size_t len)
{
  struct nlattr a = { 0 };
  unsigned char *p;

  if (!b->open || len > UINT16_MAX - NLA_HDRLEN)
    {
      b->broken = true;
      return;
    }
  p = reserve (b, NLA_HDRLEN + len);
  if (p == NULL)
    return;
  a.nla_len = (uint16_t) (NLA_HDRLEN + len);
  a.nla_type = type;
  memcpy (p, &a, sizeof a);
  if (len)
    memcpy (p + NLA_HDRLEN, data, len);
}

void
nft_batch_put_str (struct nft_batch *b, uint16_t type, const char *s)
{
  nft_batch_put (b, type, s, strlen (s) + 1);
}

void
nft_batch_put_be32 (struct nft_batch *b, uint16_t type, uint32_t v)
{
  uint32_t be = htonl (v);
  nft_batch_put (b, type, &be, sizeof be);
}

void
nft_batch_nest (struct nft_batch *b, uint16_t type)
{
  size_t at = b->len;

  if (b->depth == NFT_BATCH_NEST_MAX)
    {
      b->broken = true;
      return;
    }
  nft_batch_put (b, type | NLA_F_NESTED, NULL, 0);
  if (!b->broken)
    b->nest[b->depth++] = at;
}

void
nft_batch_nest_end (struct nft_batch *b)
{
  size_t at, len;
  uint16_t len16;

  if (b->depth == 0)
    {
      b->broken = true;
      return;
    }
  at = b->nest[--b->depth];
  len = b->len - at;
  if (b->broken)
    return;
  if (len > UINT16_MAX)
    {
      b->broken = true;
      return;
    }
  len16 = (uint16_t) len;
  memcpy (b->buf + at + offsetof (struct nlattr, nla_len), &len16, sizeof len16);
}

long
nft_batch_finish (struct nft_batch *b)
{
  bool none = b->seq <= 1 || b->msg == 0;

  close_msg (b);
  open_msg (b, NFNL_MSG_BATCH_END, NLM_F_REQUEST, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);
  close_msg (b);
  if (b->full)
    return -ENOSPC;
  if (b->broken || none)
    return -EINVAL;
  return (long) b->len;
}

/* One expression: NFTA_LIST_ELEM { NFTA_EXPR_NAME, NFTA_EXPR_DATA { ... } },
 * left open at its data. */
static void
expr_open (struct nft_batch *b, const char *name)
{
  nft_batch_nest (b, NFTA_LIST_ELEM);
  nft_batch_put_str (b, NFTA_EXPR_NAME, name);
  nft_batch_nest (b, NFTA_EXPR_DATA);
}

static void
expr_close (struct nft_batch *b)
{
  nft_batch_nest_end (b);
  nft_batch_nest_end (b);
}

void
nft_expr_meta (struct nft_batch *b, uint32_t key, uint32_t dreg)
{
  expr_open (b, "meta");
  nft_batch_put_be32 (b, NFTA_META_KEY, key);
  nft_batch_put_be32 (b, NFTA_META_DREG, dreg);
  expr_close (b);
}

void
nft_expr_payload (struct nft_batch *b, uint32_t base, uint32_t offset,
                  uint32_t len, uint32_t dreg)
{
  expr_open (b, "payload");
  nft_batch_put_be32 (b, NFTA_PAYLOAD_DREG, dreg);
  nft_batch_put_be32 (b, NFTA_PAYLOAD_BASE, base);
  nft_batch_put_be32 (b, NFTA_PAYLOAD_OFFSET, offset);
  nft_batch_put_be32 (b, NFTA_PAYLOAD_LEN, len);
  expr_close (b);
}

void
nft_expr_cmp_eq (struct nft_batch *b, uint32_t sreg, const void *data, size_t len)
{
  expr_open (b, "cmp");
  nft_batch_put_be32 (b, NFTA_CMP_SREG, sreg);
  nft_batch_put_be32 (b, NFTA_CMP_OP, NFT_CMP_EQ);
  nft_batch_nest (b, NFTA_CMP_DATA);
  nft_batch_put (b, NFTA_DATA_VALUE, data, len);
  nft_batch_nest_end (b);
  expr_close (b);
}

/* immediate: its register, then its data (left open) */
static void
immediate_open (struct nft_batch *b, uint32_t dreg)
{
  expr_open (b, "immediate");
  nft_batch_put_be32 (b, NFTA_IMMEDIATE_DREG, dreg);
  nft_batch_nest (b, NFTA_IMMEDIATE_DATA);
}

void
nft_expr_immediate (struct nft_batch *b, uint32_t dreg, const void *data, size_t len)
{
  immediate_open (b, dreg);
  nft_batch_put (b, NFTA_DATA_VALUE, data, len);
  nft_batch_nest_end (b);
  expr_close (b);
}

void
nft_expr_verdict (struct nft_batch *b, int32_t verdict)
{
  immediate_open (b, NFT_REG_VERDICT);
  nft_batch_nest (b, NFTA_DATA_VERDICT);
  nft_batch_put_be32 (b, NFTA_VERDICT_CODE, (uint32_t) verdict);
  nft_batch_nest_end (b);
  nft_batch_nest_end (b);
  expr_close (b);
}

void
nft_expr_redir (struct nft_batch *b, uint32_t proto_reg)
{
  expr_open (b, "redir");
  nft_batch_put_be32 (b, NFTA_REDIR_REG_PROTO_MIN, proto_reg);
  nft_batch_put_be32 (b, NFTA_REDIR_FLAGS, NF_NAT_RANGE_PROTO_SPECIFIED);
  expr_close (b);
}

void
nft_expr_reject_tcp_rst (struct nft_batch *b)
{
  uint8_t code = 0;

  expr_open (b, "reject");
  nft_batch_put_be32 (b, NFTA_REJECT_TYPE, NFT_REJECT_TCP_RST);
  nft_batch_put (b, NFTA_REJECT_ICMP_CODE, &code, sizeof code);
  expr_close (b);
}

int
nft_batch_read_acks (const void *buf, size_t len, uint32_t first, uint32_t last,
                     unsigned *acked, int *error, uint32_t *error_seq)
{
  const unsigned char *p = buf;

  while (len > 0)
    {
      struct nlmsghdr h;
      size_t step;

      if (len < sizeof h)
        return -EPROTO;
      memcpy (&h, p, sizeof h);
      if (h.nlmsg_len < sizeof h || h.nlmsg_len > len)
        return -EPROTO;
      if (h.nlmsg_type == NLMSG_ERROR)
        {
          struct nlmsgerr e;

          if (h.nlmsg_len < NLMSG_HDRLEN + sizeof e.error)
            return -EPROTO;
          memcpy (&e.error, p + NLMSG_HDRLEN, sizeof e.error);
          if (h.nlmsg_seq >= first && h.nlmsg_seq <= last)
            {
              (*acked)++;
              if (e.error != 0 && *error == 0)
                {
                  *error = e.error < 0 ? -e.error : e.error;
                  *error_seq = h.nlmsg_seq;
                }
            }
        }
      step = NLMSG_ALIGN (h.nlmsg_len);
      if (step >= len)
        break;
      p += step;
      len -= step;
    }
  return 0;
}
