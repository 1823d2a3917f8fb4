/*
 * The guest's side of the case study: a UDP socket bound to PORT, as the
 * application receiving, and an AF_PACKET socket with SO_TIMESTAMPNS on
 * every interface, as a packet capture (tcpdump's role in GILK's 2002
 * study). For each of the first COUNT datagrams to PORT, it prints
 *   capture,SEQ,NS   when the capture's socket stamped it
 *   app,SEQ,NS       when recv() returned it to the application
 * NS on CLOCK_MONOTONIC, gilk's event clock (the capture's stamps are
 * CLOCK_REALTIME: moved by the offset between the two clocks). It stops
 * after COUNT of each, or after TIMEOUT seconds without a packet.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* REALTIME minus MONOTONIC, now. */
static int64_t clock_offset(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	return ns_of(&r) - ns_of(&m);
}

/* A captured IPv4 packet: the sequence number of a datagram to port, or -1. */
static long captured_seq(const uint8_t *p, ssize_t n, int port)
{
	const struct iphdr *ip = (const void *)p;
	const struct udphdr *udp;
	uint64_t seq;

	if (n < (ssize_t)sizeof(*ip) || ip->protocol != IPPROTO_UDP ||
	    n < ip->ihl * 4 + (ssize_t)sizeof(*udp) + 8)
		return -1;
	udp = (const void *)(p + ip->ihl * 4);
	if (ntohs(udp->dest) != port)
		return -1;
	memcpy(&seq, udp + 1, sizeof(seq));
	return (long)seq;
}

int main(int argc, char **argv)
{
	struct sockaddr_in at = { .sin_family = AF_INET };
	struct pollfd fds[2];
	long port, count, timeout, napp = 0, ncap = 0;
	int one = 1;
	int64_t off;

	if (argc != 4 || (port = atol(argv[1])) <= 0 || port > 65535 ||
	    (count = atol(argv[2])) <= 0 || (timeout = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: receiver PORT COUNT TIMEOUT-SECONDS\n");
		return 2;
	}
	at.sin_port = htons((uint16_t)port);
	fds[0].fd = socket(AF_INET, SOCK_DGRAM, 0);
	fds[1].fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	if (fds[0].fd < 0 || fds[1].fd < 0 ||
	    bind(fds[0].fd, (struct sockaddr *)&at, sizeof(at)) ||
	    setsockopt(fds[1].fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		return perror("receiver: sockets"), 1;
	fds[0].events = fds[1].events = POLLIN;
	off = clock_offset();
	while ((napp < count || ncap < count) && poll(fds, 2, (int)timeout * 1000) > 0) {
		uint8_t buf[2048];
		struct timespec now;

		if (fds[0].revents & POLLIN) {
			ssize_t n = recv(fds[0].fd, buf, sizeof(buf), 0);
			uint64_t seq;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (n >= 8 && napp < count) {
				memcpy(&seq, buf, sizeof(seq));
				printf("app,%llu,%lld\n", (unsigned long long)seq, (long long)ns_of(&now));
				napp++;
			}
		}
		if (fds[1].revents & POLLIN) {
			char ctl[256];
			struct iovec iov = { buf, sizeof(buf) };
			struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
					    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
			ssize_t n = recvmsg(fds[1].fd, &m, 0);
			long seq = n > 0 ? captured_seq(buf, n, (int)port) : -1;

			for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c && seq >= 0 && ncap < count;
			     c = CMSG_NXTHDR(&m, c)) {
				struct timespec ts;

				if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
					continue;
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				printf("capture,%ld,%lld\n", seq, (long long)(ns_of(&ts) - off));
				ncap++;
			}
		}
	}
	fflush(stdout);
	fprintf(stderr, "receiver: %ld datagrams received, %ld captured\n", napp, ncap);
	return 0;
}
