/* The nfnetlink batch builder (runtime/nft_batch.c) and the transparent
 * path's batch (runtime/netns_rules.c:netns_rules_batch): hostile uses
 * first (buffers too small, nests misused, malformed acknowledgements),
 * then the layout (lengths, alignment, nesting, numbering) and what each
 * rule holds.  No socket, no root: what the kernel makes of the batch is
 * tests/integration/egress-transparent.bats's. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/netns_rules.h"
#include "runtime/nft_batch.h"
#include "tests/unit/unit.h"

static long
ruleset_len (void)
{
  static unsigned char buf[8192];
  const char *what[NETNS_RULES_MESSAGES];
  return netns_rules_batch (buf, sizeof buf, 1, what);
}

static void
test_a_buffer_too_small_fails_without_writing_past_it (void)
{
  const char *what[NETNS_RULES_MESSAGES];
  long full = ruleset_len ();
  size_t cap;

  CHECK (full > 0);
  CHECK (netns_rules_batch (NULL, 4096, 1, what) == -ENOSPC);
  /* each size short of the batch, in a heap block of exactly that size
   * (ASan catches a byte written past it), a guard after it besides */
  for (cap = 0; full > 0 && cap < (size_t) full; cap++)
    {
      unsigned char *buf = malloc (cap + 16);
      size_t i;
      bool kept = true;

      if (buf == NULL)
        return;
      memset (buf + cap, 0xa5, 16);
      CHECK (netns_rules_batch (buf, cap, 1, what) == -ENOSPC);
      for (i = 0; i < 16; i++)
        kept = kept && buf[cap + i] == 0xa5;
      if (!kept)
        fprintf (stderr, "cap %zu: written past\n", cap);
      CHECK (kept);
      free (buf);
    }
  {
    unsigned char *buf = malloc ((size_t) full);
    CHECK (buf && netns_rules_batch (buf, (size_t) full, 1, what) == full);
    free (buf);
  }
}

static void
test_misuse_fails_the_batch (void)
{
  unsigned char buf[1024];
  static unsigned char big[100000], data[65536];
  struct nft_batch b;
  int i;

  /* no message */
  nft_batch_init (&b, buf, sizeof buf, 1);
  CHECK (nft_batch_finish (&b) == -EINVAL);
  /* an attribute before any message */
  nft_batch_init (&b, buf, sizeof buf, 1);
  nft_batch_put_str (&b, NFTA_TABLE_NAME, "t");
  nft_batch_msg (&b, NFT_MSG_NEWTABLE, 1, 0);
  CHECK (nft_batch_finish (&b) == -EINVAL);
  /* a nest left open */
  nft_batch_init (&b, buf, sizeof buf, 1);
  nft_batch_msg (&b, NFT_MSG_NEWCHAIN, 1, 0);
  nft_batch_nest (&b, NFTA_CHAIN_HOOK);
  CHECK (nft_batch_finish (&b) == -EINVAL);
  /* ... or left open into the next message */
  nft_batch_init (&b, buf, sizeof buf, 1);
  nft_batch_msg (&b, NFT_MSG_NEWCHAIN, 1, 0);
  nft_batch_nest (&b, NFTA_CHAIN_HOOK);
  nft_batch_msg (&b, NFT_MSG_NEWCHAIN, 1, 0);
  CHECK (nft_batch_finish (&b) == -EINVAL);
  /* one closed too many */
  nft_batch_init (&b, buf, sizeof buf, 1);
  nft_batch_msg (&b, NFT_MSG_NEWTABLE, 1, 0);
  nft_batch_nest_end (&b);
  CHECK (nft_batch_finish (&b) == -EINVAL);
  /* nests deeper than the builder keeps */
  nft_batch_init (&b, buf, sizeof buf, 1);
  nft_batch_msg (&b, NFT_MSG_NEWRULE, 1, 0);
  for (i = 0; i <= NFT_BATCH_NEST_MAX; i++)
    nft_batch_nest (&b, NFTA_LIST_ELEM);
  for (i = 0; i <= NFT_BATCH_NEST_MAX; i++)
    nft_batch_nest_end (&b);
  CHECK (nft_batch_finish (&b) == -EINVAL);
  /* an attribute longer than nla_len can say */
  nft_batch_init (&b, big, sizeof big, 1);
  nft_batch_msg (&b, NFT_MSG_NEWTABLE, 1, 0);
  nft_batch_put (&b, NFTA_TABLE_USERDATA, data, 65532);
  CHECK (nft_batch_finish (&b) == -EINVAL);
  /* a nest that outgrows it */
  nft_batch_init (&b, big, sizeof big, 1);
  nft_batch_msg (&b, NFT_MSG_NEWTABLE, 1, 0);
  nft_batch_nest (&b, NFTA_TABLE_USERDATA);
  nft_batch_put (&b, 1, data, 40000);
  nft_batch_put (&b, 1, data, 40000);
  nft_batch_nest_end (&b);
  CHECK (nft_batch_finish (&b) == -EINVAL);
}

static void
put_msg (unsigned char *p, uint32_t len, uint16_t type, uint32_t seq, int32_t error)
{
  struct nlmsghdr h = { .nlmsg_len = len, .nlmsg_type = type, .nlmsg_seq = seq };
  memcpy (p, &h, sizeof h);
  if (len >= NLMSG_HDRLEN + sizeof error)
    memcpy (p + NLMSG_HDRLEN, &error, sizeof error);
}

static void
test_malformed_acknowledgements_are_refused (void)
{
  unsigned char buf[256] = { 0 };
  unsigned acked = 0;
  uint32_t seq = 0;
  int error = 0;

  /* shorter than a header */
  CHECK (nft_batch_read_acks (buf, 8, 1, 5, &acked, &error, &seq) == -EPROTO);
  /* a length shorter than the header, or past the buffer */
  put_msg (buf, 8, NLMSG_ERROR, 2, 0);
  CHECK (nft_batch_read_acks (buf, 36, 1, 5, &acked, &error, &seq) == -EPROTO);
  put_msg (buf, 200, NLMSG_ERROR, 2, 0);
  CHECK (nft_batch_read_acks (buf, 36, 1, 5, &acked, &error, &seq) == -EPROTO);
  /* an error message with no room for its errno */
  put_msg (buf, 18, NLMSG_ERROR, 2, 0);
  CHECK (nft_batch_read_acks (buf, 20, 1, 5, &acked, &error, &seq) == -EPROTO);
  /* a good one followed by a truncated one */
  put_msg (buf, 36, NLMSG_ERROR, 2, 0);
  put_msg (buf + 36, 36, NLMSG_ERROR, 3, 0);
  CHECK (nft_batch_read_acks (buf, 50, 1, 5, &acked, &error, &seq) == -EPROTO);
  CHECK (error == 0);
}

static void
test_acknowledgements_count_and_name_the_first_refusal (void)
{
  unsigned char buf[256] = { 0 };
  unsigned acked = 0;
  uint32_t seq = 0;
  int error = 0;

  put_msg (buf, 36, NLMSG_ERROR, 2, 0);
  put_msg (buf + 36, 36, NLMSG_ERROR, 3, -ENOENT);
  put_msg (buf + 72, 36, NLMSG_ERROR, 9, -EPERM);  /* not ours */
  put_msg (buf + 108, 20, NLMSG_DONE, 4, 0);       /* not an ack */
  put_msg (buf + 128, 36, NLMSG_ERROR, 4, -EOPNOTSUPP);
  CHECK (nft_batch_read_acks (buf, 164, 1, 5, &acked, &error, &seq) == 0);
  CHECK (acked == 3);
  CHECK (error == ENOENT && seq == 3);
  /* nothing at all is no acknowledgement, and no error */
  acked = 0, error = 0;
  CHECK (nft_batch_read_acks (buf, 0, 1, 5, &acked, &error, &seq) == 0);
  CHECK (acked == 0 && error == 0);
}

static void
test_one_attribute_exactly (void)
{
  unsigned char buf[256];
  struct nft_batch b;
  struct nlmsghdr h;
  struct nfgenmsg g;
  struct nlattr a;
  long len;
  size_t at;

  memset (buf, 0xee, sizeof buf);
  nft_batch_init (&b, buf, sizeof buf, 7);
  CHECK (nft_batch_msg (&b, NFT_MSG_NEWTABLE, 1, NLM_F_CREATE) == 8);
  nft_batch_put_str (&b, NFTA_TABLE_NAME, "ab");
  len = nft_batch_finish (&b);
  /* begin 20, table 20 + 8 ("ab\0" padded), end 20 */
  CHECK (len == 20 + 28 + 20);
  memcpy (&h, buf, sizeof h);
  memcpy (&g, buf + NLMSG_HDRLEN, sizeof g);
  CHECK (h.nlmsg_len == 20 && h.nlmsg_type == NFNL_MSG_BATCH_BEGIN && h.nlmsg_seq == 7);
  CHECK (h.nlmsg_flags == NLM_F_REQUEST && g.res_id == htons (NFNL_SUBSYS_NFTABLES));
  at = 20;
  memcpy (&h, buf + at, sizeof h);
  memcpy (&g, buf + at + NLMSG_HDRLEN, sizeof g);
  CHECK (h.nlmsg_len == 28 && h.nlmsg_seq == 8);
  CHECK (h.nlmsg_type == (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWTABLE));
  CHECK (h.nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE));
  CHECK (g.nfgen_family == 1 && g.version == NFNETLINK_V0 && g.res_id == 0);
  memcpy (&a, buf + at + 20, sizeof a);
  CHECK (a.nla_len == 7 && a.nla_type == NFTA_TABLE_NAME);
  CHECK (memcmp (buf + at + 24, "ab\0\0", 4) == 0); /* padding zeroed */
  at = 48;
  memcpy (&h, buf + at, sizeof h);
  CHECK (h.nlmsg_len == 20 && h.nlmsg_type == NFNL_MSG_BATCH_END && h.nlmsg_seq == 9);
  CHECK (buf[68] == 0xee);
}

/* Walks attributes in [p, p + len): each within its parent, aligned, its
 * padding zero; nested ones (NLA_F_NESTED) walked too.  Expression names
 * (NFTA_EXPR_NAME at depth `expr_depth`) are appended to names. */
static bool
walk_attrs (const unsigned char *p, size_t len, int depth, char *names, size_t size)
{
  while (len > 0)
    {
      struct nlattr a;
      size_t step, payload;

      if (len < NLA_HDRLEN)
        return false;
      memcpy (&a, p, sizeof a);
      if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
        return false;
      payload = a.nla_len - NLA_HDRLEN;
      step = NLA_ALIGN (a.nla_len);
      if (step > len)
        return false;
      for (size_t i = a.nla_len; i < step; i++)
        if (p[i] != 0)
          return false;
      if (a.nla_type & NLA_F_NESTED)
        {
          if (!walk_attrs (p + NLA_HDRLEN, payload, depth + 1, names, size))
            return false;
        }
      /* NFTA_RULE_EXPRESSIONS > NFTA_LIST_ELEM > NFTA_EXPR_NAME */
      else if (depth == 2 && a.nla_type == NFTA_EXPR_NAME)
        {
          if (payload == 0 || p[NLA_HDRLEN + payload - 1] != '\0')
            return false;
          strncat (names, (const char *) p + NLA_HDRLEN, size - strlen (names) - 2);
          strcat (names, " ");
        }
      p += step;
      len -= step;
    }
  return true;
}

static void
test_the_ruleset_batch_layout (void)
{
  static const char *const exprs[NETNS_RULES_MESSAGES] = {
    "", "",
    "meta cmp payload cmp immediate redir ",
    "meta cmp payload cmp immediate redir ",
    "meta cmp payload cmp immediate ",
    "meta cmp payload cmp immediate ",
    "meta cmp immediate redir ",
    "",
    "meta cmp payload cmp immediate ",
    "meta cmp payload cmp immediate ",
    "meta cmp reject ",
    "immediate ",
  };
  static const uint8_t types[NETNS_RULES_MESSAGES] = {
    NFT_MSG_NEWTABLE, NFT_MSG_NEWCHAIN, NFT_MSG_NEWRULE, NFT_MSG_NEWRULE,
    NFT_MSG_NEWRULE, NFT_MSG_NEWRULE, NFT_MSG_NEWRULE, NFT_MSG_NEWCHAIN,
    NFT_MSG_NEWRULE, NFT_MSG_NEWRULE, NFT_MSG_NEWRULE, NFT_MSG_NEWRULE,
  };
  unsigned char buf[4096];
  const char *what[NETNS_RULES_MESSAGES];
  long len = netns_rules_batch (buf, sizeof buf, 100, what);
  size_t at = 0;
  unsigned i = 0;

  CHECK (len > 0 && len % 4 == 0);
  CHECK_CONTAINS (what[6], "redirect to :15001");
  CHECK_CONTAINS (what[1], "chain intercept");
  while (len > 0 && at < (size_t) len)
    {
      struct nlmsghdr h;
      char names[256] = "";
      const size_t head = NLMSG_HDRLEN + NLMSG_ALIGN (sizeof (struct nfgenmsg));

      memcpy (&h, buf + at, sizeof h);
      CHECK (h.nlmsg_len >= head && h.nlmsg_len % 4 == 0);
      CHECK (at + h.nlmsg_len <= (size_t) len);
      if (h.nlmsg_len < head || at + h.nlmsg_len > (size_t) len)
        return;
      CHECK (h.nlmsg_seq == 100 + i);
      if (i == 0)
        CHECK (h.nlmsg_type == NFNL_MSG_BATCH_BEGIN);
      else if (i == NETNS_RULES_MESSAGES + 1)
        CHECK (h.nlmsg_type == NFNL_MSG_BATCH_END);
      else if (i <= NETNS_RULES_MESSAGES)
        {
          CHECK (h.nlmsg_type == (NFNL_SUBSYS_NFTABLES << 8 | types[i - 1]));
          CHECK ((h.nlmsg_flags & (NLM_F_REQUEST | NLM_F_ACK)) == (NLM_F_REQUEST | NLM_F_ACK));
          CHECK (walk_attrs (buf + at + head, h.nlmsg_len - head, 0, names, sizeof names));
          if (strcmp (names, exprs[i - 1]) != 0)
            fprintf (stderr, "message %u: expressions `%s`, not `%s`\n", i, names,
                     exprs[i - 1]);
          CHECK (strcmp (names, exprs[i - 1]) == 0);
        }
      at += h.nlmsg_len;
      i++;
    }
  CHECK (at == (size_t) len);
  CHECK (i == NETNS_RULES_MESSAGES + 2);
}

int
main (void)
{
  RUN_TEST (test_a_buffer_too_small_fails_without_writing_past_it);
  RUN_TEST (test_misuse_fails_the_batch);
  RUN_TEST (test_malformed_acknowledgements_are_refused);
  RUN_TEST (test_acknowledgements_count_and_name_the_first_refusal);
  RUN_TEST (test_one_attribute_exactly);
  RUN_TEST (test_the_ruleset_batch_layout);
  return UNIT_EXIT ();
}
