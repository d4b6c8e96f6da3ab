/* The approver protocol (issue 18; docs/egress.md, Asking a person): JSON
 * lines over the unix stream socket the runtime connects to the policy's
 * egress.ask socket and hands to the sidecar.
 *
 *   sidecar -> approver
 *     {"type":"hello","id":"ctr","version":1}
 *     {"type":"question","qid":7,"id":"ctr","host":"example.com","port":443,
 *      "proto":"connect","via":"proxy","timeout_ms":30000}
 *     {"type":"done","qid":7,"id":"ctr","outcome":"timeout"}
 *   approver -> sidecar
 *     {"qid":7,"answer":"allow-once"}     (or "allow-always", "deny")
 *
 * Lines are at most ASK_LINE_MAX bytes with their newline.  Both sides
 * format and parse here (the sidecar the questions and the answers it
 * reads, `agentrt approve` the other way round); parsing refuses what is
 * not exactly that: unknown types and answers, missing or mistyped
 * fields, numbers out of range, fields too long for their buffer.
 * Unknown extra members are ignored (a newer peer may add some; in an
 * answer only with a string, number, true, false or null value: the
 * sidecar reads answers by hand, without yajl). */
#ifndef AGENTRT_OCI_ASK_LINE_H
#define AGENTRT_OCI_ASK_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#define ASK_PROTOCOL_VERSION 1
#define ASK_LINE_MAX 2048
#define ASK_ID_MAX 1024  /* a container id (state_id_valid) */
#define ASK_HOST_MAX 253 /* a DNS name, or an address */
#define ASK_WORD_MAX 23  /* proto, via, outcome */

enum ask_answer
{
  ASK_ALLOW_ONCE,
  ASK_ALLOW_ALWAYS, /* for this container's lifetime */
  ASK_DENY,
};

/* "allow-once", "allow-always", "deny". */
const char *ask_answer_name (enum ask_answer a);

enum ask_msg_type
{
  ASK_MSG_HELLO,
  ASK_MSG_QUESTION,
  ASK_MSG_DONE, /* the question is settled: outcome says how */
};

struct ask_msg
{
  enum ask_msg_type type;
  uint64_t qid;                 /* question, done */
  uint32_t version;             /* hello */
  char id[ASK_ID_MAX + 1];
  char host[ASK_HOST_MAX + 1];  /* question */
  uint16_t port;                /* question, 1..65535 */
  char proto[ASK_WORD_MAX + 1]; /* question: http, connect, socks5, tcp */
  char via[ASK_WORD_MAX + 1];   /* question: proxy, sni, host, dns */
  uint32_t timeout_ms;          /* question */
  char outcome[ASK_WORD_MAX + 1]; /* done: an answer's name, "timeout",
                                     "approver-gone" */
};

/* The line of m, newline included (malloc'd; *len counts the newline). */
char *ask_msg_format (const struct ask_msg *m, size_t *len);
/* One line (without or with its newline) into *m. */
int ask_msg_parse (const char *line, size_t len, struct ask_msg *m, agentrt_error_t *err);

char *ask_answer_format (uint64_t qid, enum ask_answer a, size_t *len);
int ask_answer_parse (const char *line, size_t len, uint64_t *qid, enum ask_answer *a,
                      agentrt_error_t *err);

#endif
