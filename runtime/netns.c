/* `lo`, the default routes and the sidecar's sockets in the agent's
 * namespace (see netns.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/netns.h"

/* Sends one rtnetlink request and waits for its acknowledgement: 0, or
 * -errno (the kernel's refusal, or the socket's failure). */
static int
rtnl_request (void *req, size_t len)
{
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  char reply[512];
  ssize_t n;
  int fd, r = 0;

  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0)
    return -errno;
  if (sendto (fd, req, len, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0)
    r = -errno;
  else if ((n = recv (fd, reply, sizeof reply, 0)) < (ssize_t) sizeof (struct nlmsghdr))
    r = n < 0 ? -errno : -EIO;
  else
    {
      struct nlmsghdr *h = (struct nlmsghdr *) reply;
      if (h->nlmsg_type == NLMSG_ERROR)
        r = ((struct nlmsgerr *) NLMSG_DATA (h))->error;
    }
  close (fd);
  return r;
}

static int
loopback_index (void)
{
  int i = (int) if_nametoindex ("lo");
  return i ? i : 1; /* lo is always the first link of a namespace */
}

int
netns_loopback_up (struct child_error *cerr)
{
  struct
  {
    struct nlmsghdr nh;
    struct ifinfomsg ifi;
  } req;
  int r;

  memset (&req, 0, sizeof req);
  req.nh.nlmsg_len = sizeof req;
  req.nh.nlmsg_type = RTM_NEWLINK;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  req.nh.nlmsg_seq = 1;
  req.ifi.ifi_family = AF_UNSPEC;
  req.ifi.ifi_index = loopback_index ();
  req.ifi.ifi_flags = IFF_UP;
  req.ifi.ifi_change = IFF_UP;
  r = rtnl_request (&req, sizeof req);
  return r < 0 ? child_error (cerr, -r, "bring up lo") : 0;
}

/* RTM_NEWROUTE for the default route of `family` out of lo, with `src`
 * (4 or 16 bytes, or NULL) as its preferred source. */
static int
default_route (int family, const void *src, size_t src_len)
{
  struct
  {
    struct nlmsghdr nh;
    struct rtmsg rt;
    char attrs[64];
  } req;
  struct rtattr *a;
  int oif = loopback_index ();

  memset (&req, 0, sizeof req);
  req.nh.nlmsg_len = NLMSG_LENGTH (sizeof req.rt);
  req.nh.nlmsg_type = RTM_NEWROUTE;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
  req.nh.nlmsg_seq = 1;
  req.rt.rtm_family = (unsigned char) family;
  req.rt.rtm_table = RT_TABLE_MAIN;
  req.rt.rtm_protocol = RTPROT_BOOT;
  req.rt.rtm_scope = family == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
  req.rt.rtm_type = RTN_UNICAST;
  a = (struct rtattr *) ((char *) &req + NLMSG_ALIGN (req.nh.nlmsg_len));
  a->rta_type = RTA_OIF;
  a->rta_len = RTA_LENGTH (sizeof oif);
  memcpy (RTA_DATA (a), &oif, sizeof oif);
  req.nh.nlmsg_len = NLMSG_ALIGN (req.nh.nlmsg_len) + RTA_ALIGN (a->rta_len);
  if (src)
    {
      a = (struct rtattr *) ((char *) &req + req.nh.nlmsg_len);
      a->rta_type = RTA_PREFSRC;
      a->rta_len = RTA_LENGTH (src_len);
      memcpy (RTA_DATA (a), src, src_len);
      req.nh.nlmsg_len += RTA_ALIGN (a->rta_len);
    }
  return rtnl_request (&req, req.nh.nlmsg_len);
}

int
netns_default_routes (struct child_error *cerr)
{
  struct in_addr lo4 = { htonl (INADDR_LOOPBACK) };
  int r = default_route (AF_INET, &lo4, sizeof lo4);

  if (r < 0)
    return child_error (cerr, -r, "transparent egress: the default route "
                        "out of lo (IPv4)");
  r = default_route (AF_INET6, NULL, 0);
  /* no IPv6 in this namespace (or this kernel): nothing to route */
  if (r < 0 && r != -EAFNOSUPPORT && r != -EOPNOTSUPP)
    return child_error (cerr, -r, "transparent egress: the default route "
                        "out of lo (IPv6)");
  return 0;
}

static const struct
{
  const char *option;
  int family, type, port;
} egress_sockets[EGRESS_SOCKETS] = {
  [EGRESS_SOCK_HTTP] = { "--http-fd", AF_INET, SOCK_STREAM, EGRESS_HTTP_PORT },
  [EGRESS_SOCK_SOCKS] = { "--socks-fd", AF_INET, SOCK_STREAM, EGRESS_SOCKS_PORT },
  [EGRESS_SOCK_TRANSPARENT] = { "--transparent-fd", AF_INET, SOCK_STREAM,
                                EGRESS_TRANSPARENT_PORT },
  [EGRESS_SOCK_TRANSPARENT6] = { "--transparent6-fd", AF_INET6, SOCK_STREAM,
                                 EGRESS_TRANSPARENT_PORT },
  [EGRESS_SOCK_DNS_UDP] = { "--dns-udp-fd", AF_INET, SOCK_DGRAM, EGRESS_DNS_PORT },
  [EGRESS_SOCK_DNS_TCP] = { "--dns-tcp-fd", AF_INET, SOCK_STREAM, EGRESS_DNS_PORT },
  [EGRESS_SOCK_DNS_UDP6] = { "--dns-udp6-fd", AF_INET6, SOCK_DGRAM, EGRESS_DNS_PORT },
  [EGRESS_SOCK_DNS_TCP6] = { "--dns-tcp6-fd", AF_INET6, SOCK_STREAM, EGRESS_DNS_PORT },
};

const char *
netns_egress_option (enum egress_socket i)
{
  return egress_sockets[i].option;
}

/* Socket i bound on the loopback address of its family: the fd, or
 * -errno. */
static int
egress_socket (enum egress_socket i)
{
  union
  {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
  } addr;
  socklen_t len;
  int one = 1, fd, r;

  memset (&addr, 0, sizeof addr);
  if (egress_sockets[i].family == AF_INET)
    {
      addr.in.sin_family = AF_INET;
      addr.in.sin_port = htons ((uint16_t) egress_sockets[i].port);
      addr.in.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      len = sizeof addr.in;
    }
  else
    {
      addr.in6.sin6_family = AF_INET6;
      addr.in6.sin6_port = htons ((uint16_t) egress_sockets[i].port);
      addr.in6.sin6_addr = in6addr_loopback;
      len = sizeof addr.in6;
    }
  fd = socket (egress_sockets[i].family,
               egress_sockets[i].type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return -errno;
  /* TCP only: a datagram socket with SO_REUSEADDR could share its port
   * with another that sets it too */
  if ((egress_sockets[i].type == SOCK_STREAM
       && setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
      || bind (fd, &addr.sa, len) < 0
      || (egress_sockets[i].type == SOCK_STREAM && listen (fd, 1024) < 0))
    {
      r = -errno;
      close (fd);
      return r;
    }
  return fd;
}

int
netns_egress_sockets (bool transparent, int fds[EGRESS_SOCKETS],
                      struct child_error *cerr)
{
  int n = transparent ? EGRESS_SOCKETS : EGRESS_PROXY_SOCKETS, i;

  for (i = 0; i < EGRESS_SOCKETS; i++)
    fds[i] = -1;
  for (i = 0; i < n; i++)
    {
      int fd = egress_socket ((enum egress_socket) i);
      bool v6 = egress_sockets[i].family == AF_INET6;

      /* a namespace without IPv6 (the kernel's or ::1's) has no IPv6
       * connection to serve */
      if (v6 && (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL))
        continue;
      if (fd < 0)
        {
          netns_egress_close (fds);
          return child_error (cerr, -fd, "egress proxy: %s %s:%d",
                              egress_sockets[i].type == SOCK_DGRAM ? "bind UDP"
                                                                   : "listen on",
                              v6 ? "[::1]" : "127.0.0.1", egress_sockets[i].port);
        }
      fds[i] = fd;
    }
  return 0;
}

int
netns_egress_count (const int fds[EGRESS_SOCKETS])
{
  int n = 0;
  for (int i = 0; i < EGRESS_SOCKETS; i++)
    n += fds[i] >= 0;
  return n;
}

void
netns_egress_close (int fds[EGRESS_SOCKETS])
{
  for (int i = 0; i < EGRESS_SOCKETS; i++)
    if (fds[i] >= 0)
      {
        close (fds[i]);
        fds[i] = -1;
      }
}
