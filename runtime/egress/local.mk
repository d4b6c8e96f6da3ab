# runtime/egress/: the egress proxy sidecar, agentrt-egress (installed in
# $(pkglibexecdir), exec'd by the runtime with inherited fds), and
# libegress.a, the pure parsers it shares with the runtime (the runtime
# validates the allowlist annotation with allowlist_parse).
noinst_LIBRARIES += libegress.a
libegress_a_SOURCES = \
	runtime/egress/allowlist.c runtime/egress/allowlist.h \
	runtime/egress/dns.c runtime/egress/dns.h \
	runtime/egress/http_parse.c runtime/egress/http_parse.h \
	runtime/egress/nameconf.c runtime/egress/nameconf.h \
	runtime/egress/netaddr.c runtime/egress/netaddr.h \
	runtime/egress/socks5.c runtime/egress/socks5.h

EGRESS_UNIT_LDADD = libegress.a libcommon.a

check_PROGRAMS += \
	tests/unit/test-egress-allowlist \
	tests/unit/test-egress-dns \
	tests/unit/test-egress-http \
	tests/unit/test-egress-netaddr \
	tests/unit/test-egress-socks5
TESTS += \
	tests/unit/test-egress-allowlist \
	tests/unit/test-egress-dns \
	tests/unit/test-egress-http \
	tests/unit/test-egress-netaddr \
	tests/unit/test-egress-socks5
tests_unit_test_egress_allowlist_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_dns_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_http_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_netaddr_LDADD = $(EGRESS_UNIT_LDADD)
tests_unit_test_egress_socks5_LDADD = $(EGRESS_UNIT_LDADD)
