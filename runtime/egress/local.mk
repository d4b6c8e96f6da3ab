# runtime/egress/: the egress proxy sidecar, agentrt-egress (installed in
# $(pkglibexecdir), exec'd by the runtime with inherited fds), and
# libegress.a, its pure code, shared with the unit tests and the runtime
# (which validates the allowlist annotation with allowlist_parse, and
# judges its wildcards against the Public Suffix List: public_suffix.c,
# the one file here that reads a file).
noinst_LIBRARIES += libegress.a
libegress_a_SOURCES = \
	runtime/egress/agent_resolv.c runtime/egress/agent_resolv.h \
	runtime/egress/allowlist.c runtime/egress/allowlist.h \
	runtime/egress/ask_table.c runtime/egress/ask_table.h \
	runtime/egress/dns.c runtime/egress/dns.h \
	runtime/egress/dns_stub.c runtime/egress/dns_stub.h \
	runtime/egress/http_parse.c runtime/egress/http_parse.h \
	runtime/egress/inject_rewrite.c runtime/egress/inject_rewrite.h \
	runtime/egress/inject_wire.c runtime/egress/inject_wire.h \
	runtime/egress/namecache.c runtime/egress/namecache.h \
	runtime/egress/nameconf.c runtime/egress/nameconf.h \
	runtime/egress/netaddr.c runtime/egress/netaddr.h \
	runtime/egress/peek.c runtime/egress/peek.h \
	runtime/egress/poll_window.c runtime/egress/poll_window.h \
	runtime/egress/public_suffix.c runtime/egress/public_suffix.h \
	runtime/egress/punycode.c runtime/egress/punycode.h \
	runtime/egress/socks5.c runtime/egress/socks5.h \
	runtime/egress/suffix_cache.c runtime/egress/suffix_cache.h \
	runtime/egress/ticket_store.c runtime/egress/ticket_store.h

EGRESS_UNIT_LDADD = libegress.a libcommon.a

check_PROGRAMS += \
	tests/unit/test-egress-agent-resolv \
	tests/unit/test-egress-ask \
	tests/unit/test-egress-allowlist \
	tests/unit/test-egress-dns \
	tests/unit/test-egress-dns-stub \
	tests/unit/test-egress-peek \
	tests/unit/test-egress-http \
	tests/unit/test-egress-inject \
	tests/unit/test-egress-netaddr \
	tests/unit/test-egress-poll \
	tests/unit/test-egress-public-suffix \
	tests/unit/test-egress-socks5 \
	tests/unit/test-egress-tickets
TESTS += \
	tests/unit/test-egress-agent-resolv \
	tests/unit/test-egress-ask \
	tests/unit/test-egress-allowlist \
	tests/unit/test-egress-dns \
	tests/unit/test-egress-dns-stub \
	tests/unit/test-egress-peek \
	tests/unit/test-egress-http \
	tests/unit/test-egress-inject \
	tests/unit/test-egress-netaddr \
	tests/unit/test-egress-poll \
	tests/unit/test-egress-public-suffix \
	tests/unit/test-egress-socks5 \
	tests/unit/test-egress-tickets
tests_unit_test_egress_agent_resolv_LDADD = $(EGRESS_UNIT_LDADD)
# the approver's lines are oci/'s (yajl)
tests_unit_test_egress_ask_LDADD = libegress.a liboci.a libcommon.a $(YAJL_LIBS)
tests_unit_test_egress_allowlist_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_dns_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_dns_stub_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_peek_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_http_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_inject_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_netaddr_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_poll_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_public_suffix_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_socks5_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_tickets_LDADD = $(EGRESS_UNIT_LDADD)

pkglibexec_PROGRAMS = agentrt-egress
agentrt_egress_SOURCES = \
	runtime/egress/ask.c runtime/egress/ask.h \
	runtime/egress/audit.c \
	runtime/egress/conn.c \
	runtime/egress/egress.c runtime/egress/egress.h \
	runtime/egress/lockdown.c runtime/egress/lockdown.h \
	runtime/egress/mitm.c \
	runtime/egress/proxy_http.c \
	runtime/egress/proxy_socks.c \
	runtime/egress/relay.c \
	runtime/egress/resolver.c \
	runtime/egress/selftest.c runtime/egress/selftest.h \
	runtime/egress/stub.c \
	runtime/egress/tls.c runtime/egress/tls.h \
	runtime/egress/transparent.c \
	runtime/fault.c runtime/fault.h
agentrt_egress_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(OPENSSL_CFLAGS)
agentrt_egress_LDFLAGS = $(AM_LDFLAGS) $(EGRESS_LDFLAGS)
agentrt_egress_LDADD = libegress.a liboci.a libcommon.a $(SECCOMP_LIBS) $(OPENSSL_LIBS)

# End-to-end test of the binary in network namespaces of its own: needs
# root (skips otherwise), takes about a minute.
TESTS += tests/egress/run.sh

EXTRA_DIST += docs/egress.md \
	tests/egress/run.sh tests/egress/launch.py tests/egress/server.py \
	tests/egress/client.py tests/egress/dns_server.py tests/egress/git_server.py \
	tests/egress/ask.sh tests/egress/approver.py \
	tests/egress/packages \
	tests/fuzz/fuzz-http.c tests/fuzz/fuzz-socks5.c tests/fuzz/fuzz-allowlist.c \
	tests/fuzz/fuzz-peek.c tests/fuzz/fuzz-dns-query.c tests/fuzz/fuzz-inject.c \
	tests/fuzz/fuzz-ask-answer.c \
	tests/fuzz/corpus/inject tests/fuzz/corpus/http tests/fuzz/corpus/socks5 tests/fuzz/corpus/allowlist \
	tests/fuzz/corpus/peek tests/fuzz/corpus/dns-query tests/fuzz/corpus/ask-answer
