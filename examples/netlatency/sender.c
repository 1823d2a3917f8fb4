/*
 * The host's side of the case study: COUNT UDP datagrams to 127.0.0.1:PORT
 * (QEMU forwards that port to the lab guest's e1000), RATE a second on an
 * absolute schedule, each carrying its sequence number (8 bytes, host
 * order) and padded to SIZE bytes.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct timespec next;
	char buf[1400] = { 0 };
	long port, count, rate, size;
	int fd;

	if (argc != 5 || (port = atol(argv[1])) <= 0 || port > 65535 ||
	    (count = atol(argv[2])) <= 0 || count > 1000000 ||
	    (rate = atol(argv[3])) <= 0 || rate > 100000 ||
	    (size = atol(argv[4])) < 8 || size > (long)sizeof(buf)) {
		fprintf(stderr, "usage: sender PORT COUNT RATE SIZE (8..%zu bytes)\n", sizeof(buf));
		return 2;
	}
	to.sin_port = htons((uint16_t)port);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return perror("socket"), 1;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long i = 0; i < count; i++) {
		uint64_t seq = (uint64_t)i;

		memcpy(buf, &seq, sizeof(seq));
		if (sendto(fd, buf, (size_t)size, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			return perror("sendto"), 1;
		next.tv_nsec += 1000000000L / rate;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	close(fd);
	return 0;
}
