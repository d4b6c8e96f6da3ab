/* nf_tables requests as one nfnetlink batch, built into the caller's
 * buffer (nothing allocates: the monitor and a short-lived child use it):
 * NFNL_MSG_BATCH_BEGIN, the messages (each asking for an acknowledgement),
 * NFNL_MSG_BATCH_END; the attributes and the expressions the transparent
 * path's rules use (netns_rules.c); and the reader of the kernel's
 * acknowledgements.  Pure: no socket here.  A buffer too small, or nests
 * left open, make nft_batch_finish fail; nothing is written past the
 * buffer. */
#ifndef AGENTRT_NFT_BATCH_H
#define AGENTRT_NFT_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NFT_BATCH_NEST_MAX 8

struct nft_batch
{
  unsigned char *buf;
  size_t cap, len;
  size_t msg;                       /* offset of the open message */
  size_t nest[NFT_BATCH_NEST_MAX];  /* offsets of the open nests */
  unsigned depth;
  uint32_t seq;                     /* the next message's */
  bool open, full, broken;          /* a message open; out of room; misused */
};

/* Starts a batch in buf (cap bytes) with NFNL_MSG_BATCH_BEGIN numbered
 * seq; the messages get seq + 1, seq + 2, ... */
void nft_batch_init (struct nft_batch *b, void *buf, size_t cap, uint32_t seq);

/* Opens an nf_tables message (NFT_MSG_NEWTABLE...) for `family`
 * (NFPROTO_INET...) with NLM_F_REQUEST | NLM_F_ACK | flags, closing the
 * one before; returns its sequence number. */
uint32_t nft_batch_msg (struct nft_batch *b, uint16_t type, uint8_t family,
                        uint16_t flags);

/* Attributes of the open message (or of the innermost open nest). */
void nft_batch_put (struct nft_batch *b, uint16_t type, const void *data, size_t len);
void nft_batch_put_str (struct nft_batch *b, uint16_t type, const char *s);
void nft_batch_put_be32 (struct nft_batch *b, uint16_t type, uint32_t v);
void nft_batch_nest (struct nft_batch *b, uint16_t type);
void nft_batch_nest_end (struct nft_batch *b);

/* Expressions, inside NFTA_RULE_EXPRESSIONS (each one NFTA_LIST_ELEM). */
void nft_expr_meta (struct nft_batch *b, uint32_t key, uint32_t dreg);
void nft_expr_payload (struct nft_batch *b, uint32_t base, uint32_t offset,
                       uint32_t len, uint32_t dreg);
void nft_expr_cmp_eq (struct nft_batch *b, uint32_t sreg, const void *data, size_t len);
void nft_expr_immediate (struct nft_batch *b, uint32_t dreg, const void *data, size_t len);
void nft_expr_verdict (struct nft_batch *b, int32_t verdict);
void nft_expr_redir (struct nft_batch *b, uint32_t proto_reg);
void nft_expr_reject_tcp_rst (struct nft_batch *b);

/* Closes the last message and appends NFNL_MSG_BATCH_END: the batch's
 * length, or -ENOSPC (the buffer was too small) or -EINVAL (a nest left
 * open, none closed too many, or no message). */
long nft_batch_finish (struct nft_batch *b);

/* The acknowledgements in buf (len bytes, as recv'd: netlink messages):
 * counts those for sequence numbers in [first, last] into *acked, and the
 * first refusal's errno and sequence number into *error and *error_seq
 * (left alone when there is none).  -EPROTO for a malformed message
 * (a length shorter than its header or past the buffer). */
int nft_batch_read_acks (const void *buf, size_t len, uint32_t first, uint32_t last,
                         unsigned *acked, int *error, uint32_t *error_seq);

#endif
