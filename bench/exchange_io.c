// SPDX-License-Identifier: MIT
/* The control channel's sockets: every wait is a poll() with a deadline and
 * a cancellation flag, so a silent or hostile peer cannot hang us. */
#include "exchange.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Poll slices, so cancellation is seen within this many ms. */
#define SLICE_MS 100

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool cancelled(atomic_bool *cancel)
{
	return cancel && atomic_load(cancel);
}

/* Waits for events on fd until the deadline: 1 ready, 0 timed out. */
static int wait_fd(int fd, short events, int64_t deadline, atomic_bool *cancel)
{
	for (;;) {
		if (cancelled(cancel))
			return -ECANCELED;
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = {.fd = fd, .events = events};
		int r = poll(&p, 1, (int)(left < SLICE_MS ? left : SLICE_MS));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 1;
	}
}

/* A peer host that vanishes (no FIN, no RST) is noticed within ~11 s. */
static void tune(int fd)
{
	int one = 1, idle = 5, intvl = 2, cnt = 3;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

int exchange_listen(const char *addr, uint16_t port, int *ret_fd, uint16_t *ret_port, struct err *e)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	struct addrinfo *res;
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	int r = getaddrinfo(addr, service, &hints, &res);
	if (r)
		return err_setx(e, EADDRNOTAVAIL, "cannot resolve '%s': %s", addr ? addr : "*",
				gai_strerror(r));
	int fd = -1, saved = 0;
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 128) == 0 &&
		    set_nonblock(fd) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return err_set(e, saved ? saved : EADDRNOTAVAIL, "cannot listen on TCP port %u",
			       port);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	uint16_t bound = port;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						       : ((struct sockaddr_in *)&ss)->sin_port);
	*ret_fd = fd;
	if (ret_port)
		*ret_port = bound;
	return 0;
}

int exchange_accept(int lfd, int timeout_ms, atomic_bool *cancel, int *ret_fd, struct err *e)
{
	int64_t deadline = timeout_ms < 0 ? INT64_MAX : now_ms() + timeout_ms;
	for (;;) {
		int r = wait_fd(lfd, POLLIN, deadline, cancel);
		if (r == -ECANCELED)
			return err_setx(e, ECANCELED, "cancelled while waiting for a client");
		if (r < 0)
			return err_set(e, -r, "cannot wait for a client");
		if (r == 0)
			return err_setx(e, ETIMEDOUT, "no client connected within %d ms",
					timeout_ms);
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0) {
			tune(fd);
			*ret_fd = fd;
			return 0;
		}
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			return err_set(e, errno, "cannot accept a client");
	}
}

int exchange_connect(const char *host, uint16_t port, int timeout_ms, int *ret_fd, struct err *e)
{
	return exchange_connect_from(host, port, NULL, timeout_ms, ret_fd, e);
}

int exchange_connect_from(const char *host, uint16_t port, const char *src, int timeout_ms,
			  int *ret_fd, struct err *e)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	struct addrinfo *res, *from = NULL;
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	if (src) {
		struct addrinfo h = {.ai_family = AF_UNSPEC,
				     .ai_socktype = SOCK_STREAM,
				     .ai_flags = AI_NUMERICHOST | AI_PASSIVE};
		if (getaddrinfo(src, NULL, &h, &from))
			return err_setx(e, EINVAL, "--bind wants a numeric address, got '%s'", src);
	}
	int r = getaddrinfo(host, service, &hints, &res);
	if (r) {
		if (from)
			freeaddrinfo(from);
		return err_setx(e, EHOSTUNREACH, "cannot resolve '%s': %s", host, gai_strerror(r));
	}
	int64_t deadline = now_ms() + timeout_ms;
	int fd = -1, saved = ECONNREFUSED;
	bool family = !from, bound = !from;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
		if (from && a->ai_family != from->ai_family)
			continue;
		family = true;
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		if (from && bind(fd, from->ai_addr, from->ai_addrlen) < 0) {
			saved = errno;
			close(fd);
			fd = -1;
			continue;
		}
		bound = true;
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			saved = errno;
		} else {
			int w = wait_fd(fd, POLLOUT, deadline, NULL);
			int soerr = 0;
			socklen_t sl = sizeof(soerr);
			if (w > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 &&
			    soerr == 0)
				break;
			saved = w == 0 ? ETIMEDOUT : soerr ? soerr : EIO;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (from)
		freeaddrinfo(from);
	if (!family)
		return err_setx(e, EAFNOSUPPORT, "--bind '%s' is not of the family of '%s'", src,
				host);
	if (!bound)
		return err_set(e, saved, "cannot bind to '%s' (an address of this host?)", src);
	if (fd < 0)
		return err_set(e, saved, "cannot connect to '%s' port %u", host, port);
	tune(fd);
	*ret_fd = fd;
	return 0;
}

static int write_all(int fd, const uint8_t *buf, size_t len, int64_t deadline, struct err *e)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return err_set(e, errno, "cannot send to the peer");
		int r = wait_fd(fd, POLLOUT, deadline, NULL);
		if (r <= 0)
			return err_setx(e, ETIMEDOUT, "the peer does not read (send timed out)");
	}
	return 0;
}

static int read_all(int fd, uint8_t *buf, size_t len, int64_t deadline, atomic_bool *cancel,
		    struct err *e)
{
	while (len) {
		ssize_t n = recv(fd, buf, len, MSG_DONTWAIT);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return err_setx(e, ECONNRESET, "the peer closed the connection");
		if (errno != EAGAIN && errno != EINTR)
			return err_set(e, errno, "cannot read from the peer");
		int r = wait_fd(fd, POLLIN, deadline, cancel);
		if (r == -ECANCELED)
			return err_setx(e, ECANCELED, "cancelled");
		if (r <= 0)
			return err_setx(e, ETIMEDOUT, "the peer sent nothing (timed out)");
	}
	return 0;
}

int exchange_send_frame(int fd, const uint8_t *buf, size_t len, int timeout_ms, struct err *e)
{
	return write_all(fd, buf, len, now_ms() + timeout_ms, e);
}

int exchange_send(int fd, const struct exchange_msg *m, int timeout_ms, struct err *e)
{
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = exchange_encode(m, buf, sizeof(buf), e);
	if (n < 0)
		return n;
	return exchange_send_frame(fd, buf, (size_t)n, timeout_ms, e);
}

int exchange_recv_frame(int fd, uint8_t *buf, size_t size, int timeout_ms, atomic_bool *cancel,
			struct err *e)
{
	int64_t deadline = timeout_ms < 0 ? INT64_MAX : now_ms() + timeout_ms;
	if (size < EXCHANGE_MAX_MSG)
		return err_setx(e, ENOSPC, "a frame buffer of %zu bytes, want %d", size,
				EXCHANGE_MAX_MSG);
	int r = read_all(fd, buf, EXCHANGE_HEADER_LEN, deadline, cancel, e);
	if (r < 0)
		return r;
	uint16_t type;
	int blen = exchange_decode_header(buf, EXCHANGE_HEADER_LEN, &type, e);
	if (blen < 0)
		return blen;
	r = read_all(fd, buf + EXCHANGE_HEADER_LEN, (size_t)blen, deadline, cancel, e);
	if (r < 0)
		return r;
	return EXCHANGE_HEADER_LEN + blen;
}

int exchange_recv(int fd, struct exchange_msg *ret, int timeout_ms, atomic_bool *cancel,
		  struct err *e)
{
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = exchange_recv_frame(fd, buf, sizeof(buf), timeout_ms, cancel, e);
	if (n < 0)
		return n;
	return exchange_decode(buf, (size_t)n, ret, e);
}
