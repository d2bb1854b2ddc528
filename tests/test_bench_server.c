// SPDX-License-Identifier: MIT
/* `ibvf bench server` against silent, hostile and keyless peers on loopback,
 * on a simulated node (no RDMA device here): the server's gate answers
 * before it opens the device, so a good client's hello comes back with
 * "no RDMA device 'mlx5_0'" -- through the gate, served, named. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <dirent.h>

#include "bench/exchange.h"
#include "testutil.h"

struct server {
	pid_t pid;
	char err_path[256];
	char port[8];
	char *dir;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 1 << 20);
	ck_assert_ptr_nonnull(s);
	if (f) {
		size_t n = fread(s, 1, (1 << 20) - 1, f);
		s[n] = '\0';
		fclose(f);
	}
	return s;
}

/* Starts `ibvf --sim=DIR bench server --port 0 ARGS...` and waits for its
 * first line; false (and the server reaped) when it exited instead. */
static bool server_start(struct server *s, const char *const *args)
{
	const char *bin = getenv("IBVF_BIN");
	char *sim = tu_sim_arg(s->dir);
	const char *argv[32] = {bin, sim, "bench", "server", "--port", "0"};
	size_t n = 6;
	for (size_t i = 0; args && args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	snprintf(s->err_path, sizeof(s->err_path), "%s/server.err", s->dir);
	s->pid = fork();
	ck_assert_int_ge(s->pid, 0);
	if (s->pid == 0) {
		int fd = open(s->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		dup2(nul, 1);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	free(sim);
	for (double end = tu_now_s() + 10 * tu_time_scale(); tu_now_s() < end;) {
		char *err = slurp(s->err_path);
		const char *at = strstr(err, "listening on ");
		const char *colon = at ? strchr(at, ':') : NULL;
		if (colon && strchr(colon, '\n')) {
			snprintf(s->port, sizeof(s->port), "%d", atoi(colon + 1));
			free(err);
			return true;
		}
		free(err);
		int st;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = -1;
			return false;
		}
		usleep(20000);
	}
	ck_abort_msg("the server did not start");
	return false;
}

/* SIGTERM, and its exit status. */
static int server_stop(struct server *s)
{
	int st = 0;
	if (s->pid <= 0)
		return -1;
	kill(s->pid, SIGTERM);
	waitpid(s->pid, &st, 0);
	s->pid = -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs bench_peer with args; its stdout (malloc'd) and exit status. */
static int peer(char **ret_out, const char *const *args)
{
	const char *bin = getenv("IBVF_BENCH_PEER");
	const char *argv[16] = {bin};
	size_t n = 1;
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	char *out = calloc(1, 4096);
	size_t len = 0;
	ssize_t k;
	while ((k = read(p[0], out + len, 4095 - len)) > 0)
		len += (size_t)k;
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	*ret_out = out;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static long proc_status(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long v = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			v = atol(line + strlen(field) + 1);
	if (f)
		fclose(f);
	return v;
}

static int fd_count(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	int n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int connect_silent(const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

#define THROUGH "answer: abort 2: no RDMA device 'mlx5_0'"

START_TEST(a_silent_client_does_not_hold_the_server)
{
	struct server s = {.dir = tu_mkfixture(NULL)};
	const char *args[] = {"--timeout", "2000", NULL};
	ck_assert(server_start(&s, args));
	int silent = connect_silent(s.port);
	char *out;
	const char *good[] = {"good", "127.0.0.1", s.port, NULL};
	double t0 = tu_now_s();
	ck_assert_int_eq(peer(&out, good), 0);
	/* Through the gate and served while the silent one still waits. */
	ck_assert_msg(strstr(out, THROUGH), "good client: %s", out);
	ck_assert_msg(tu_now_s() - t0 < 2.0, "the good client waited %.1f s", tu_now_s() - t0);
	free(out);
	/* The silent one is told and dropped at its deadline. */
	struct pollfd p = {.fd = silent, .events = POLLIN};
	ck_assert_int_eq(poll(&p, 1, (int)(5000 * tu_time_scale())), 1);
	char buf[128] = {0};
	ck_assert_int_gt(recv(silent, buf, sizeof(buf) - 1, 0), 0);
	ck_assert_ptr_nonnull(memmem(buf, sizeof(buf), "sent no OPEN within 2000 ms", 27));
	close(silent);
	ck_assert_int_eq(server_stop(&s), 1);
	char *err = slurp(s.err_path);
	ck_assert_msg(strstr(err, "open: no --key, any client that reaches this port can run a "
				  "test"),
		      "%s", err);
	ck_assert_msg(strstr(err, "refused: sent no OPEN within 2000 ms") ||
			      strstr(err, "dropped: sent no OPEN within 2000 ms"),
		      "%s", err);
	free(err);
	tu_rmtree(s.dir);
}
END_TEST

START_TEST(the_key_is_checked_and_a_refused_client_leaves_the_server_serving)
{
	struct server s = {.dir = tu_mkfixture(NULL)};
	char key[300], other[300], loose[300], link[300];
	snprintf(key, sizeof(key), "%s/key", s.dir);
	snprintf(other, sizeof(other), "%s/other", s.dir);
	snprintf(loose, sizeof(loose), "%s/loose", s.dir);
	snprintf(link, sizeof(link), "%s/link", s.dir);
	tu_write(key, "0123456789abcdef0123456789abcdef\n");
	tu_write(other, "fedcba9876543210fedcba9876543210\n");
	tu_write(loose, "0123456789abcdef0123456789abcdef\n");
	chmod(key, 0600);
	chmod(other, 0600);
	chmod(loose, 0644);
	ck_assert_int_eq(symlink(key, link), 0);
	/* Key files another user could read or swap: refused, one line. */
	const char *bad[][2] = {
		{loose, "is readable or writable by others (mode 0644): chmod 600 it"},
		{link, "(a symbolic link)"},
	};
	for (size_t i = 0; i < 2; i++) {
		char *sim = tu_sim_arg(s.dir), *out, *err;
		const char *a[] = {sim, "bench", "server", "--key", bad[i][0], NULL};
		ck_assert_int_eq(tu_run(a, &out, &err), 2);
		ck_assert_msg(strstr(err, bad[i][1]), "%s", err);
		ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
		free(out);
		free(err);
		free(sim);
	}
	const char *args[] = {"--key", key, NULL};
	ck_assert(server_start(&s, args));
	char *out;
	const char *none[] = {"good", "127.0.0.1", s.port, NULL};
	const char *wrong[] = {"good", "127.0.0.1", s.port, other, NULL};
	const char *right[] = {"good", "127.0.0.1", s.port, key, NULL};
	ck_assert_int_eq(peer(&out, none), 0);
	ck_assert_msg(strstr(out, "answer: abort 4: key mismatch: this server wants a key"), "%s",
		      out);
	free(out);
	ck_assert_int_eq(peer(&out, wrong), 0);
	ck_assert_msg(strstr(out, "answer: abort 4: key mismatch: the hello's HMAC"), "%s", out);
	free(out);
	ck_assert_int_eq(peer(&out, right), 0);
	ck_assert_msg(strstr(out, THROUGH), "%s", out);
	free(out);
	server_stop(&s);
	char *err = slurp(s.err_path);
	ck_assert_msg(strstr(err, "clients need the shared key (--key)"), "%s", err);
	ck_assert_msg(strstr(err, "refused: key mismatch: this server wants a key"), "%s", err);
	ck_assert_msg(strstr(err, "refused: key mismatch: the hello's HMAC"), "%s", err);
	free(err);
	tu_rmtree(s.dir);
}
END_TEST

START_TEST(bind_chooses_the_address_and_says_it)
{
	struct server s = {.dir = tu_mkfixture(NULL)};
	const char *args[] = {"--bind", "127.0.0.1", NULL};
	ck_assert(server_start(&s, args));
	char *err = slurp(s.err_path);
	ck_assert_msg(strstr(err, "listening on 127.0.0.1:"), "%s", err);
	ck_assert_ptr_null(strstr(err, "all addresses"));
	/* A second client is not left guessing: the first line says it waits. */
	ck_assert_msg(strstr(err, "one client at a time (others wait, each within its --timeout)"),
		      "%s", err);
	free(err);
	server_stop(&s);
	char *sim = tu_sim_arg(s.dir), *out;
	const char *a[] = {sim, "bench", "server", "--bind", "192.0.2.1", NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 1);
	ck_assert_msg(strstr(err, "bench server: cannot listen on TCP port 18515"), "%s", err);
	free(out);
	free(err);
	const char *c[] = {sim, "bench", "loopback", "mlx5_0", "--bind", "127.0.0.1", NULL};
	ck_assert_int_eq(tu_run(c, &out, &err), 2);
	ck_assert_msg(
		strstr(err, "'bench loopback' takes no --bind: it goes with 'bench server|client'"),
		"%s", err);
	free(out);
	free(err);
	free(sim);
	tu_rmtree(s.dir);
}
END_TEST

/* `bench client --bind ADDR`: the control connection leaves from ADDR (the
 * server sees it); an address this host does not have, or of the other
 * family, is named. */
START_TEST(connect_from_a_chosen_source_address)
{
	int lfd, cfd, afd;
	uint16_t port;
	struct err e = {{0}};
	ck_assert_int_eq(exchange_listen("127.0.0.1", 0, &lfd, &port, &e), 0);
	ck_assert_int_eq(exchange_connect_from("127.0.0.1", port, "127.0.0.2", 2000, &cfd, &e), 0);
	ck_assert_int_eq(exchange_accept(lfd, 2000, NULL, &afd, &e), 0);
	struct sockaddr_in peer;
	socklen_t sl = sizeof(peer);
	ck_assert_int_eq(getpeername(afd, (struct sockaddr *)&peer, &sl), 0);
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof(ip));
	ck_assert_str_eq(ip, "127.0.0.2");
	close(cfd);
	close(afd);
	ck_assert_int_lt(exchange_connect_from("127.0.0.1", port, "192.0.2.1", 1000, &cfd, &e), 0);
	ck_assert_msg(strstr(e.msg, "cannot bind to '192.0.2.1'"), "%s", e.msg);
	ck_assert_int_lt(exchange_connect_from("127.0.0.1", port, "::1", 1000, &cfd, &e), 0);
	ck_assert_msg(strstr(e.msg, "'::1' is not of the family of '127.0.0.1'"), "%s", e.msg);
	ck_assert_int_lt(exchange_connect_from("127.0.0.1", port, "a.b", 1000, &cfd, &e), 0);
	ck_assert_msg(strstr(e.msg, "--bind wants a numeric address, got 'a.b'"), "%s", e.msg);
	close(lfd);
}
END_TEST

START_TEST(a_device_that_cannot_open_backs_off_and_stops)
{
	struct server s = {.dir = tu_mkfixture(NULL)};
	ck_assert(server_start(&s, NULL));
	/* No client, no attempt: nothing to repeat. */
	usleep(500000);
	char *err = slurp(s.err_path), *out;
	ck_assert_ptr_null(strstr(err, "no RDMA device"));
	free(err);
	const char *good[] = {"good", "127.0.0.1", s.port, NULL};
	double t0 = tu_now_s();
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(peer(&out, good), 0);
		ck_assert_msg(strstr(out, THROUGH), "client %d: %s", i, out);
		free(out);
	}
	/* 100 + 200 + 400 + 800 ms of back-off between them. */
	ck_assert_msg(tu_now_s() - t0 >= 1.5, "5 clients in %.2f s", tu_now_s() - t0);
	int st;
	waitpid(s.pid, &st, 0);
	s.pid = -1;
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	err = slurp(s.err_path);
	int lines = 0;
	for (const char *p = err; (p = strstr(p, "no RDMA device 'mlx5_0'")); p++)
		lines++;
	ck_assert_msg(lines == 2, "%s", err); /* the first, and the stop */
	ck_assert_msg(strstr(err, "the same failure (4 in a row); next client in 800 ms"), "%s",
		      err);
	ck_assert_msg(strstr(err, "stopped: the same failure 5 times in a row: no RDMA device "
				  "'mlx5_0'"),
		      "%s", err);
	free(err);
	tu_rmtree(s.dir);
}
END_TEST

/* The load test: 100 hostile clients at once for FLOOD_S seconds, each
 * reconnecting when dropped, one of them saying OPEN and then ALIVE every
 * 200 ms; a good client in the middle is served within its timeout, and
 * the server's memory and descriptors come back. */
#define FLOOD_S "6"
START_TEST(a_flood_of_hostile_clients_leaves_the_server_serving)
{
	struct server s = {.dir = tu_mkfixture(NULL)};
	const char *args[] = {"--timeout", "1000", NULL};
	ck_assert(server_start(&s, args));
	usleep(200000);
	long rss0 = proc_status(s.pid, "VmRSS:"), hwm0 = proc_status(s.pid, "VmHWM:");
	int fds0 = fd_count(s.pid);
	pid_t flood = fork();
	if (flood == 0) {
		const char *bin = getenv("IBVF_BENCH_PEER");
		execl(bin, bin, "flood", "127.0.0.1", s.port, "100", FLOOD_S, (char *)NULL);
		_exit(127);
	}
	usleep(2000000);
	int fds_mid = fd_count(s.pid);
	char *out;
	const char *good[] = {"good", "127.0.0.1", s.port, NULL};
	double t0 = tu_now_s();
	ck_assert_int_eq(peer(&out, good), 0);
	double good_s = tu_now_s() - t0;
	ck_assert_msg(strstr(out, THROUGH), "good client under the flood: %s", out);
	free(out);
	int st;
	waitpid(flood, &st, 0);
	/* The last of the flood's connections are dropped at their deadline. */
	int fds1 = -1;
	for (double end = tu_now_s() + 3 * tu_time_scale(); tu_now_s() < end; usleep(100000))
		if ((fds1 = fd_count(s.pid)) <= fds0)
			break;
	long rss1 = proc_status(s.pid, "VmRSS:"), hwm1 = proc_status(s.pid, "VmHWM:");
	fprintf(stderr,
		"load: 100 clients for " FLOOD_S " s; good client answered in %.3f s; VmRSS %ld -> "
		"%ld kB, VmHWM %ld -> %ld kB; fds %d before, %d during, %d after\n",
		good_s, rss0, rss1, hwm0, hwm1, fds0, fds_mid, fds1);
	ck_assert_int_eq(fds1, fds0);
	ck_assert_int_le(fds_mid, fds0 + 256); /* the gate's table */
	ck_assert_int_lt(hwm1 - hwm0, 16 * 1024);
	ck_assert_int_lt(good_s,
			 1.0 * tu_time_scale()); /* not behind a silent one's 1 s deadline */
	server_stop(&s);
	char *err = slurp(s.err_path);
	ck_assert_msg(strstr(err, "refused: 64 QPs of 8388608-byte messages ask for 512 MiB"),
		      "no 64 QPs line: %.1500s", err);
	ck_assert_msg(
		strstr(err, "refused: this server speaks bench protocol 4, the client 2") ||
			strstr(err, "refused: protocol version 2, this ibvf speaks version 4"),
		"no version line: %.1500s", err);
	ck_assert_msg(strstr(err, "refused: message body of 4294967295 bytes over the limit"),
		      "no 4 GiB line: %.1500s", err);
	free(err);
	tu_rmtree(s.dir);
}
END_TEST

/* 32 QPs x 8 MiB x 1e8 iterations both ways (~12 days at 200 Gb/s) is
 * refused at the gate with one line naming the figure: the client is told,
 * the server logs it and serves the next. */
START_TEST(an_iteration_run_past_the_time_limit_is_refused_at_the_gate)
{
	struct server s = {.dir = tu_mkfixture(NULL)};
	ck_assert(server_start(&s, NULL));
	char *out;
	const char *big[] = {"good", "127.0.0.1", s.port, "--big", NULL};
	const char *good[] = {"good", "127.0.0.1", s.port, NULL};
	const char *line = "32 QPs x 8388608 B x 100000000 iterations take 214748365 s at 1 "
			   "Gb/s, over the 3600 s limit";
	ck_assert_int_eq(peer(&out, big), 0);
	ck_assert_msg(strstr(out, "answer: abort 2: ") && strstr(out, line), "%.1500s", out);
	free(out);
	ck_assert_int_eq(peer(&out, good), 0);
	ck_assert_msg(strstr(out, THROUGH), "%.1500s", out);
	free(out);
	server_stop(&s);
	char *err = slurp(s.err_path);
	ck_assert_msg(strstr(err, "refused: ") && strstr(err, line), "%.1500s", err);
	free(err);
	tu_rmtree(s.dir);
}
END_TEST

/* The number after `key` in out, or -1. */
static double figure_after(const char *out, const char *key)
{
	const char *at = strstr(out, key);
	return at ? atof(at + strlen(key)) : -1;
}

/* A server that answers OPEN with ALIVE every 200 ms (bench_peer session
 * alive-flood): the engine's client handshake ends within its timeout
 * instead of waiting as long as ALIVEs come (it once did: 40 s for a 3 s
 * timeout). Bounds are the timeout given, not a speed. */
START_TEST(an_alive_flood_does_not_hold_a_client)
{
	const int tmo = (int)(3000 * tu_time_scale());
	char t[16], *out;
	snprintf(t, sizeof(t), "%d", tmo);
	const char *args[] = {"session", "alive-flood", t, NULL};
	double t0 = tu_now_s();
	ck_assert_int_eq(peer(&out, args), 1);
	double took = tu_now_s() - t0;
	ck_assert_msg(strstr(out, "client: error: the peer sent ALIVE outside a run (before its "
				  "START or after its DONE): session ended"),
		      "%.1500s", out);
	fprintf(stderr, "alive-flood: the client ended after %.0f ms (timeout %d ms)\n",
		figure_after(out, "ms: "), tmo);
	ck_assert_msg(figure_after(out, "ms: ") >= 0 && figure_after(out, "ms: ") < tmo, "%.1500s",
		      out);
	/* The fake server holds 10 timeouts: the whole run is far shorter. */
	ck_assert_msg(took < 2.0 * tmo / 1000, "took %.1f s, timeout %d ms", took, tmo);
	free(out);
}
END_TEST

/* The engine's server (the gate, bench_run_size(), bench_recv()) for a
 * client that says ALIVE after the ACCEPT instead of START: dropped at its
 * first ALIVE, and the next client is served; with a key too. */
START_TEST(alive_before_start_drops_the_client_and_the_next_is_served)
{
	const int tmo = (int)(3000 * tu_time_scale());
	char t[16], key[300], *out;
	char *dir = tu_mkfixture(NULL);
	snprintf(t, sizeof(t), "%d", tmo);
	snprintf(key, sizeof(key), "%s/key", dir);
	tu_write(key, "0123456789abcdef0123456789abcdef\n");
	chmod(key, 0600);
	for (int keyed = 0; keyed < 2; keyed++) {
		const char *args[] = {"session", "alive-early", t, keyed ? key : NULL, NULL};
		ck_assert_int_eq(peer(&out, args), 1);
		ck_assert_msg(strstr(out, "server: client 1: error after "), "%.1500s", out);
		ck_assert_msg(strstr(out, "ms: the peer sent ALIVE outside a run (before its START "
					  "or after its DONE): session ended\n"),
			      "%.1500s", out);
		double after = figure_after(out, "client 1: error after ");
		ck_assert_msg(after >= 0 && after < tmo / 2, "dropped after %.0f ms: %.1500s",
			      after, out);
		ck_assert_msg(strstr(out, "server: client 2: result 40.00 Gb/s"), "%.1500s", out);
		free(out);
	}
	tu_rmtree(dir);
}
END_TEST

/* A client that starts a run and then only says ALIVE (it would for 20
 * timeouts): the server ends the session at its deadline, on its own
 * clock -- the run at the floor (1000 x 64 KiB at 1 Gb/s: 1 s, rounded up)
 * and three timeouts. */
START_TEST(the_server_ends_a_session_at_its_deadline_whatever_the_client_sends)
{
	const int tmo = (int)(1000 * tu_time_scale());
	char t[16], *out;
	snprintf(t, sizeof(t), "%d", tmo);
	const char *args[] = {"session", "alive-hold", t, NULL};
	ck_assert_int_eq(peer(&out, args), 1);
	double budget = figure_after(out, "budget "), after = figure_after(out, "error after ");
	ck_assert_msg(budget == 1000 + 3 * tmo, "%.1500s", out);
	ck_assert_msg(strstr(out, "ms: the session ran past its deadline ("), "%.1500s", out);
	fprintf(stderr,
		"alive-hold: the server ended the session after %.0f ms (deadline %.0f ms)\n",
		after, budget);
	ck_assert_msg(after >= budget * 0.95 && after < budget + tmo, "%.1500s", out);
	ck_assert_msg(strstr(out, "client: ALIVE until the server closed"), "%.1500s", out);
	free(out);
}
END_TEST

/* An on-path host multiplies a DONE's figures by 5 (bench_peer session
 * rewrite: a relay). Keyed: the server's session ends on the bad MAC, no
 * result, status 1; the same run without the relay gives the client's
 * 40 Gb/s. Without a key the rewrite goes through: what --key is for. */
START_TEST(a_rewritten_figure_ends_a_keyed_session)
{
	char key[300], *out;
	char *dir = tu_mkfixture(NULL);
	snprintf(key, sizeof(key), "%s/key", dir);
	tu_write(key, "0123456789abcdef0123456789abcdef\n");
	chmod(key, 0600);
	const char *keyed[] = {"session", "rewrite", "3000", key, NULL};
	ck_assert_int_eq(peer(&out, keyed), 1);
	ck_assert_msg(strstr(out, "relay: rewrote 1 DONE figures"), "%.1500s", out);
	ck_assert_msg(strstr(out, "ms: a message from the peer has a bad MAC (altered on the way, "
				  "or not from the key's holder): session ended, no result\n"),
		      "%.1500s", out);
	ck_assert_ptr_null(strstr(out, "result "));
	free(out);
	const char *direct[] = {"session", "direct", "3000", key, NULL};
	ck_assert_int_eq(peer(&out, direct), 0);
	ck_assert_msg(strstr(out, "server: client 1: result 40.00 Gb/s"), "%.1500s", out);
	free(out);
	const char *open[] = {"session", "rewrite", "3000", NULL};
	ck_assert_int_eq(peer(&out, open), 0);
	ck_assert_msg(strstr(out, "server: client 1: result 200.00 Gb/s"), "%.1500s", out);
	free(out);
	tu_rmtree(dir);
}
END_TEST

START_TEST(a_server_per_pf_gives_up_a_device_that_cannot_open)
{
	/* No verbs device here: rail 0's server tells each client so, backs
	 * off, and stops after 5; the others keep their ports. */
	struct server s = {.dir = tu_mkfixture(NULL)};
	char port[16], *out;
	const char *args[] = {"--all-pfs", "--port", port, NULL};
	/* 12 ports in a row: another run may hold one of them; try elsewhere. */
	bool up = false;
	for (int i = 0; i < 8 && !up; i++) {
		snprintf(port, sizeof(port), "%d", 20000 + (int)((getpid() + 1237 * i) % 12000));
		up = server_start(&s, args);
	}
	ck_assert(up);
	ck_assert_str_eq(s.port, port);
	const char *good[] = {"good", "127.0.0.1", port, NULL};
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(peer(&out, good), 0);
		ck_assert_msg(strstr(out, THROUGH), "client %d: %s", i, out);
		free(out);
	}
	ck_assert_int_eq(server_stop(&s), 1);
	char *err = slurp(s.err_path);
	ck_assert_msg(strstr(err, "for PF 0000:18:00.0 (rail 0), listening on 0.0.0.0:"), "%s",
		      err);
	ck_assert_msg(strstr(err, "bench server PF 0000:18:00.0 'mlx5_0': stopped: the same "
				  "failure 5 times in a row: no RDMA device 'mlx5_0'"),
		      "%s", err);
	free(err);
	tu_rmtree(s.dir);
}
END_TEST

static Suite *server_suite(void)
{
	Suite *s = suite_create("bench_server");
	TCase *tc = tcase_create("server");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_silent_client_does_not_hold_the_server);
	tcase_add_test(tc, the_key_is_checked_and_a_refused_client_leaves_the_server_serving);
	tcase_add_test(tc, bind_chooses_the_address_and_says_it);
	tcase_add_test(tc, connect_from_a_chosen_source_address);
	tcase_add_test(tc, a_device_that_cannot_open_backs_off_and_stops);
	tcase_add_test(tc, a_flood_of_hostile_clients_leaves_the_server_serving);
	tcase_add_test(tc, a_server_per_pf_gives_up_a_device_that_cannot_open);
	tcase_add_test(tc, an_iteration_run_past_the_time_limit_is_refused_at_the_gate);
	tcase_add_test(tc, an_alive_flood_does_not_hold_a_client);
	tcase_add_test(tc, alive_before_start_drops_the_client_and_the_next_is_served);
	tcase_add_test(tc, the_server_ends_a_session_at_its_deadline_whatever_the_client_sends);
	tcase_add_test(tc, a_rewritten_figure_ends_a_keyed_session);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(server_suite());
}
