/* The sidecar's TLS contexts and the container's CA (see tls.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "common/io.h"
#include "common/xalloc.h"
#include "ticket_store.h"
#include "tls.h"

#define LEAF_DAYS 30

struct tls_host
{
  char *name;
  SSL_CTX *ctx;
};

struct tls_state
{
  SSL_CTX *client;
  struct tls_host *hosts;
  size_t nhosts;
  struct ticket_store tickets; /* the upstream's sessions, per host */
};

static int
ssl_error (agentrt_error_t *err, const char *what)
{
  char buf[256];
  unsigned long e = ERR_get_error ();

  ERR_error_string_n (e, buf, sizeof buf);
  ERR_clear_error ();
  return agentrt_error (err, EINVAL, "%s: %s", what, e ? buf : "failed");
}

static int
add_ext (X509 *cert, X509 *issuer, int nid, const char *value)
{
  X509V3_CTX ctx;
  X509_EXTENSION *ext;
  int ok;

  X509V3_set_ctx (&ctx, issuer, cert, NULL, NULL, 0);
  ext = X509V3_EXT_conf_nid (NULL, &ctx, nid, value);
  if (ext == NULL)
    return -1;
  ok = X509_add_ext (cert, ext, -1);
  X509_EXTENSION_free (ext);
  return ok ? 0 : -1;
}

/* A certificate for key, named cn, issued by issuer (NULL: itself). */
static X509 *
new_cert (EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, unsigned days)
{
  X509 *x = X509_new ();
  BIGNUM *serial = BN_new ();
  X509_NAME *name;

  if (x == NULL || serial == NULL || !BN_rand (serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY)
      || !BN_to_ASN1_INTEGER (serial, X509_get_serialNumber (x)) || !X509_set_version (x, 2)
      || !X509_gmtime_adj (X509_getm_notBefore (x), -3600)
      || !X509_gmtime_adj (X509_getm_notAfter (x), (long) days * 86400)
      || !X509_set_pubkey (x, key) || (name = X509_get_subject_name (x)) == NULL
      || !X509_NAME_add_entry_by_txt (name, "CN", MBSTRING_ASC, (const unsigned char *) cn, -1,
                                      -1, 0)
      || !X509_set_issuer_name (x, issuer ? X509_get_subject_name (issuer) : name))
    {
      BN_free (serial);
      X509_free (x);
      return NULL;
    }
  BN_free (serial);
  (void) issuer_key;
  return x;
}

int
tls_make_ca (const char *id, const char *hosts, unsigned days, int fd, agentrt_error_t *err)
{
  EVP_PKEY *key = EVP_EC_gen ("P-256");
  char *cn = xasprintf ("agentrt egress CA %.40s", id);
  char *nc = NULL;
  size_t nclen = 0;
  X509 *x = NULL;
  BIO *mem = NULL;
  char *pem;
  long n;
  int r = -1;

  /* permitted;DNS:a,permitted;DNS:b, and no address at all: a name
   * constraint binds only names of its own type, so without the
   * exclusions the CA could vouch for any IP address */
  for (const char *p = hosts; *p;)
    {
      size_t l = strcspn (p, ",");
      nc = xrealloc (nc, nclen + l + 32);
      nclen += (size_t) snprintf (nc + nclen, l + 32, "%spermitted;DNS:%.*s",
                                  nclen ? "," : "critical,", (int) l, p);
      p += l + (p[l] == ',');
    }
  if (nc)
    {
      static const char no_ip[] = ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::";
      nc = xrealloc (nc, nclen + sizeof no_ip);
      memcpy (nc + nclen, no_ip, sizeof no_ip);
    }
  if (key == NULL || nc == NULL || (x = new_cert (key, cn, NULL, key, days)) == NULL
      || add_ext (x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") < 0
      || add_ext (x, x, NID_key_usage, "critical,keyCertSign,cRLSign") < 0
      || add_ext (x, x, NID_subject_key_identifier, "hash") < 0
      || add_ext (x, x, NID_name_constraints, nc) < 0 || !X509_sign (x, key, EVP_sha256 ())
      || (mem = BIO_new (BIO_s_mem ())) == NULL
      || !PEM_write_bio_PrivateKey (mem, key, NULL, NULL, 0, NULL, NULL)
      || !PEM_write_bio_X509 (mem, x))
    ssl_error (err, "make the egress CA");
  else if ((n = BIO_get_mem_data (mem, &pem)) <= 0 || io_write_all (fd, pem, (size_t) n, NULL) < 0)
    agentrt_error (err, errno, "make the egress CA: write it");
  else
    r = 0;
  if (mem)
    {
      n = BIO_get_mem_data (mem, &pem);
      if (n > 0)
        explicit_bzero (pem, (size_t) n);
    }
  BIO_free (mem);
  X509_free (x);
  EVP_PKEY_free (key);
  free (cn);
  free (nc);
  return r;
}

static int
alpn_select (SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
             unsigned inlen, void *arg)
{
  static const unsigned char h11[] = "\x08http/1.1";

  (void) ssl;
  (void) arg;
  if (SSL_select_next_proto ((unsigned char **) out, outlen, h11, sizeof h11 - 1, in, inlen)
      != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_ALERT_FATAL; /* HTTP/1.1 is all the sidecar reads */
  return SSL_TLSEXT_ERR_OK;
}

/* The agent must ask for the name the sidecar decided on (or none). */
static int
servername_check (SSL *ssl, int *alert, void *arg)
{
  const char *sni = SSL_get_servername (ssl, TLSEXT_NAMETYPE_host_name);

  if (sni && strcasecmp (sni, arg) != 0)
    {
      *alert = SSL_AD_UNRECOGNIZED_NAME;
      return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
  return SSL_TLSEXT_ERR_OK;
}

static SSL_CTX *
server_ctx (const char *host, EVP_PKEY *leaf_key, X509 *ca, EVP_PKEY *ca_key, agentrt_error_t *err)
{
  SSL_CTX *ctx = SSL_CTX_new (TLS_server_method ());
  X509 *leaf = new_cert (leaf_key, host, ca, ca_key, LEAF_DAYS);
  char *san = xasprintf ("DNS:%s", host);
  bool ok = ctx && leaf
            && add_ext (leaf, ca, NID_basic_constraints, "critical,CA:FALSE") == 0
            && add_ext (leaf, ca, NID_key_usage, "critical,digitalSignature") == 0
            && add_ext (leaf, ca, NID_ext_key_usage, "serverAuth") == 0
            && add_ext (leaf, ca, NID_subject_alt_name, san) == 0
            && add_ext (leaf, ca, NID_authority_key_identifier, "keyid:always") == 0
            && X509_sign (leaf, ca_key, EVP_sha256 ())
            && SSL_CTX_set_min_proto_version (ctx, TLS1_2_VERSION)
            && SSL_CTX_use_certificate (ctx, leaf) && SSL_CTX_use_PrivateKey (ctx, leaf_key)
            && SSL_CTX_add1_chain_cert (ctx, ca) && SSL_CTX_check_private_key (ctx);

  free (san);
  X509_free (leaf);
  if (!ok)
    {
      SSL_CTX_free (ctx);
      ssl_error (err, "a certificate for the agent's side");
      return NULL;
    }
  SSL_CTX_set_alpn_select_cb (ctx, alpn_select, NULL);
  SSL_CTX_set_tlsext_servername_callback (ctx, servername_check);
  SSL_CTX_set_tlsext_servername_arg (ctx, (void *) host);
  SSL_CTX_set_session_cache_mode (ctx, SSL_SESS_CACHE_SERVER);
  SSL_CTX_set_mode (ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options (ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  return ctx;
}

static void
session_release (void *sess)
{
  SSL_SESSION_free (sess);
}

/* Whether sess may be offered for a connection to host: it was kept for
 * that very name (session_keep). */
static bool
session_fits (const SSL_SESSION *sess, const char *host)
{
  const char *name = SSL_SESSION_get0_hostname (sess);

  return SSL_SESSION_is_resumable (sess) && name && host && strcasecmp (name, host) == 0;
}

/* Whether the session of ssl may be kept for slot: its handshake
 * verified the chain and the slot's name (a resumed handshake verifies
 * nothing: it carries the first one's result), and sent that name (SNI).
 * The session is marked with the name: OpenSSL's client records the name
 * it sent only when the server acknowledged it, which many do not. */
static bool
session_keep (SSL *ssl, SSL_SESSION *sess, const struct ticket_slot *slot)
{
  const char *sni = SSL_get_servername (ssl, TLSEXT_NAMETYPE_host_name);
  const char *name = SSL_SESSION_get0_hostname (sess);

  if (slot == NULL || SSL_get_verify_result (ssl) != X509_V_OK || sni == NULL
      || strcasecmp (sni, slot->host) != 0 || (name && strcasecmp (name, slot->host) != 0))
    return false;
  return (name || SSL_SESSION_set1_hostname (sess, slot->host)) && session_fits (sess, slot->host);
}

/* Keeps a copy of the session of ssl in its host's slot, if it may be.
 * A copy: OpenSSL marks the connection's own session not resumable when
 * the connection ends without close_notify or with an alert, as many
 * HTTP servers end theirs; the session was complete and verified when it
 * came, whatever happens to the connection after. */
static void
session_put (struct tls_state *t, SSL *ssl, SSL_SESSION *sess)
{
  struct ticket_slot *slot = SSL_get_app_data (ssl);
  SSL_SESSION *copy;

  if (t == NULL || sess == NULL || !session_keep (ssl, sess, slot)
      || (copy = SSL_SESSION_dup (sess)) == NULL)
    return;
  ticket_slot_put (&t->tickets, slot, copy,
                   (int64_t) SSL_SESSION_get_time (copy) + SSL_SESSION_get_timeout (copy),
                   time (NULL));
}

/* OpenSSL's word that the upstream gave a session: after a full TLS 1.2
 * handshake, and for each TLS 1.3 NewSessionTicket (after the handshake,
 * while reading).  0: OpenSSL keeps its own reference. */
static int
new_session (SSL *ssl, SSL_SESSION *sess)
{
  session_put (SSL_CTX_get_app_data (SSL_get_SSL_CTX (ssl)), ssl, sess);
  return 0;
}

static SSL_CTX *
client_ctx (const char *trust_store, agentrt_error_t *err)
{
  SSL_CTX *ctx = SSL_CTX_new (TLS_client_method ());
  static const unsigned char h11[] = "\x08http/1.1";

  if (ctx == NULL || !SSL_CTX_set_min_proto_version (ctx, TLS1_2_VERSION))
    {
      SSL_CTX_free (ctx);
      ssl_error (err, "the upstream TLS context");
      return NULL;
    }
  if (!SSL_CTX_load_verify_file (ctx, trust_store))
    {
      SSL_CTX_free (ctx);
      ssl_error (err, "the trust store");
      return agentrt_error_wrap (err, "`%s`", trust_store), NULL;
    }
  SSL_CTX_set_verify (ctx, SSL_VERIFY_PEER, NULL);
  SSL_CTX_set_alpn_protos (ctx, h11, sizeof h11 - 1);
  SSL_CTX_set_mode (ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options (ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  /* no cache of OpenSSL's own: each new session goes to new_session,
   * which keeps it in the slot of its host (ticket_store.h) */
  SSL_CTX_set_session_cache_mode (ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb (ctx, new_session);
  return ctx;
}

static int
load_ca (struct inject_set *set, X509 **ca, EVP_PKEY **key, agentrt_error_t *err)
{
  BIO *b = BIO_new_mem_buf (set->ca_key, -1);

  *key = b ? PEM_read_bio_PrivateKey (b, NULL, NULL, NULL) : NULL;
  BIO_free (b);
  explicit_bzero (set->ca_key, strlen (set->ca_key));
  b = BIO_new_mem_buf (set->ca_cert, -1);
  *ca = b ? PEM_read_bio_X509 (b, NULL, NULL, NULL) : NULL;
  BIO_free (b);
  if (*key == NULL || *ca == NULL || !X509_check_private_key (*ca, *key))
    return ssl_error (err, "the container's CA");
  return 0;
}

struct tls_state *
tls_setup (struct inject_set *set, const char *trust_store, agentrt_error_t *err)
{
  struct tls_state *t = xzalloc (sizeof (*t));
  EVP_PKEY *ca_key = NULL, *leaf_key = NULL;
  X509 *ca = NULL;
  int r = -1;

  ticket_store_init (&t->tickets, session_release);

  /* No configuration file (what the host's says must not change the
   * sidecar), and no cleanup at exit: it would run after the lockdown,
   * and its locks may need futex, which the seccomp filter refuses. */
  if (!OPENSSL_init_ssl (OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT, NULL))
    ssl_error (err, "OpenSSL");
  else if ((t->client = client_ctx (trust_store, err)) == NULL || load_ca (set, &ca, &ca_key, err) < 0)
    ;
  else if (!SSL_CTX_set_app_data (t->client, t))
    ssl_error (err, "the upstream TLS context");
  else if ((leaf_key = EVP_EC_gen ("P-256")) == NULL)
    ssl_error (err, "a key for the agent's side");
  else
    {
      r = 0;
      for (size_t i = 0; i < set->n && r == 0; i++)
        for (size_t k = 0; k < set->creds[i].nhosts && r == 0; k++)
          {
            struct tls_host *h;
            t->hosts = xreallocarray (t->hosts, t->nhosts + 1, sizeof (*t->hosts));
            h = &t->hosts[t->nhosts];
            h->name = xstrdup (set->creds[i].hosts[k]);
            h->ctx = server_ctx (h->name, leaf_key, ca, ca_key, err);
            ticket_store_add_host (&t->tickets, h->name);
            t->nhosts++;
            if (h->ctx == NULL)
              r = agentrt_error_wrap (err, "host `%s`", h->name);
          }
    }
  EVP_PKEY_free (ca_key); /* the sidecar needs it no more: every leaf is made */
  EVP_PKEY_free (leaf_key);
  X509_free (ca);
  if (r < 0)
    {
      tls_free (t);
      return NULL;
    }
  return t;
}

void
tls_free (struct tls_state *t)
{
  if (t == NULL)
    return;
  ticket_store_free (&t->tickets);
  SSL_CTX_free (t->client);
  for (size_t i = 0; i < t->nhosts; i++)
    {
      SSL_CTX_free (t->hosts[i].ctx);
      free (t->hosts[i].name);
    }
  free (t->hosts);
  free (t);
}

SSL *
tls_new_server (struct tls_state *t, const char *host)
{
  for (size_t i = 0; t && i < t->nhosts; i++)
    if (strcasecmp (t->hosts[i].name, host) == 0)
      return SSL_new (t->hosts[i].ctx);
  return NULL;
}

SSL *
tls_new_client (struct tls_state *t, const char *host)
{
  SSL *s = SSL_new (t->client);
  struct ticket_slot *slot;
  SSL_SESSION *sess;

  if (s == NULL)
    return NULL;
  if (!SSL_set_tlsext_host_name (s, host) || !SSL_set1_host (s, host))
    {
      SSL_free (s);
      return NULL;
    }
  SSL_set_hostflags (s, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  /* the verification above stays set: a full handshake (no session, or
   * one the upstream refused) verifies as without resumption */
  slot = ticket_store_slot (&t->tickets, host);
  SSL_set_app_data (s, slot);
  /* (one no longer resumable is skipped) */
  while ((sess = ticket_slot_take (&t->tickets, slot, time (NULL))) != NULL
         && !session_fits (sess, host))
    SSL_SESSION_free (sess);
  if (sess && !SSL_set_session (s, sess))
    {
      SSL_SESSION_free (sess);
      SSL_free (s);
      return NULL;
    }
  SSL_SESSION_free (sess); /* s holds its own reference; offered once */
  return s;
}

void
tls_upstream_ready (struct tls_state *t, SSL *ssl)
{
  /* A resumed TLS 1.2 session may serve again (its ticket, renewed or
   * not, is not single-use); new sessions came through new_session. */
  if (SSL_session_reused (ssl) && SSL_version (ssl) < TLS1_3_VERSION)
    session_put (t, ssl, SSL_get0_session (ssl));
}

const char *
tls_failure (SSL *ssl, int ret)
{
  long v = SSL_get_verify_result (ssl);

  if (v != X509_V_OK)
    return v == X509_V_ERR_HOSTNAME_MISMATCH ? "upstream-certificate-name"
           : v == X509_V_ERR_CERT_HAS_EXPIRED ? "upstream-certificate-expired"
                                              : "upstream-certificate-untrusted";
  switch (SSL_get_error (ssl, ret))
    {
    case SSL_ERROR_SYSCALL:
      return "tls-reset";
    case SSL_ERROR_ZERO_RETURN:
      return "tls-closed";
    default:
      return "tls-handshake-failed";
    }
}
