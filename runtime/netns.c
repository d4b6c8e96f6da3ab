/* `lo` and the proxy listeners in the agent's namespace (see netns.h). */
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

int
netns_loopback_up (struct child_error *cerr)
{
  struct
  {
    struct nlmsghdr nh;
    struct ifinfomsg ifi;
  } req;
  char reply[512];
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  ssize_t n;
  int fd;

  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0)
    return child_error (cerr, errno, "bring up lo: netlink socket");
  memset (&req, 0, sizeof req);
  req.nh.nlmsg_len = sizeof req;
  req.nh.nlmsg_type = RTM_NEWLINK;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  req.nh.nlmsg_seq = 1;
  req.ifi.ifi_family = AF_UNSPEC;
  req.ifi.ifi_index = (int) if_nametoindex ("lo");
  req.ifi.ifi_flags = IFF_UP;
  req.ifi.ifi_change = IFF_UP;
  if (req.ifi.ifi_index == 0)
    req.ifi.ifi_index = 1; /* lo is always the first link of a namespace */
  if (sendto (fd, &req, sizeof req, 0, (struct sockaddr *) &kernel,
              sizeof kernel) < 0)
    {
      close (fd);
      return child_error (cerr, errno, "bring up lo");
    }
  n = recv (fd, reply, sizeof reply, 0);
  close (fd);
  if (n < (ssize_t) sizeof (struct nlmsghdr))
    return child_error (cerr, n < 0 ? errno : EIO, "bring up lo: no answer");
  {
    struct nlmsghdr *h = (struct nlmsghdr *) reply;
    if (h->nlmsg_type == NLMSG_ERROR)
      {
        struct nlmsgerr *e = NLMSG_DATA (h);
        if (e->error != 0)
          return child_error (cerr, -e->error, "bring up lo");
      }
  }
  return 0;
}

int
netns_listen_loopback (int port, struct child_error *cerr)
{
  struct sockaddr_in addr = { .sin_family = AF_INET,
                              .sin_port = htons ((uint16_t) port),
                              .sin_addr = { htonl (INADDR_LOOPBACK) } };
  int one = 1;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return child_error (cerr, errno, "egress proxy: socket");
  if (setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
      || bind (fd, (struct sockaddr *) &addr, sizeof addr) < 0
      || listen (fd, 1024) < 0)
    {
      child_error (cerr, errno, "egress proxy: listen on 127.0.0.1:%d", port);
      close (fd);
      return -1;
    }
  return fd;
}
