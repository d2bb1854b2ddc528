// SPDX-License-Identifier: MIT
/* The kubelet's pod-resources API on the real node: v1.PodResourcesLister
 * (third_party/kubelet/podresources/v1/api.proto) over the kubelet's unix
 * socket, with the gRPC C core and the protobuf-c code the build generates.
 *
 * One read is one channel and up to three calls: List (the state is what it
 * answered), GetAllocatableResources (alloc_known), and one Get of a pod List
 * named, which only tells whether the kubelet has Get (get_known). Every call
 * has the deadline sys_set_podres() gave; an answer is bounded in bytes by
 * gRPC, in memory once unpacked by the allocator here, and in counts and
 * string lengths when copied into struct podres (podres_copy.c).
 *
 * What comes back is the kubelet's, so it is trusted only as far as the
 * socket is: it must be a socket, of root (or of the user running ibvf, for
 * a kubelet of one's own in tests). A node without the socket costs one
 * lstat and never starts gRPC, whose threads run from the first read on. */
#include "core/linux/podres_grpc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

#include "api.pb-c.h"
#include "core/linux/podres_copy.h"
#include "core/sys/podres.h"
#include "core/sys/sys_impl.h"

#define DETAIL_LEN_MAX 200
/* gRPC ends a call at its deadline; the wait for it has this much more, and
 * a call still running then is cancelled (it never outlives the read). */
#define WAIT_MARGIN_MS 1000
/* An answer unpacked takes more memory than its bytes (an empty message of
 * two bytes is a struct of fifty): bounded by this many times the bound. */
#define UNPACK_FACTOR 8

static pthread_once_t grpc_once = PTHREAD_ONCE_INIT;

static void log_nothing(gpr_log_func_args *args)
{
	(void)args;
}

/* Once per process and never shut down: gRPC's threads stay for the next
 * read (grpc_shutdown while another thread reads would break it). The
 * console owns the terminal: gRPC's own log lines would draw over it. */
static void grpc_start(void)
{
	gpr_set_log_function(log_nothing);
	grpc_init();
}

/* protobuf-c's allocator with a budget: a hostile answer within the byte
 * bound cannot make the unpacked message take gigabytes. */
struct budget {
	ProtobufCAllocator a;
	size_t left;
	bool exhausted;
};

struct chunk {
	alignas(max_align_t) size_t size;
};

static void *budget_alloc(void *data, size_t size)
{
	struct budget *b = data;
	if (size > b->left || size > SIZE_MAX - sizeof(struct chunk)) {
		b->exhausted = true;
		return NULL;
	}
	struct chunk *c = malloc(sizeof(*c) + size);
	if (!c)
		return NULL;
	c->size = size;
	b->left -= size;
	return c + 1;
}

static void budget_free(void *data, void *ptr)
{
	struct budget *b = data;
	if (!ptr)
		return;
	struct chunk *c = (struct chunk *)ptr - 1;
	b->left += c->size;
	free(c);
}

/* One call's outcome: the status, its details made printable, the answer
 * unpacked (NULL unless OK and well formed). */
struct answer {
	grpc_status_code status;
	char details[DETAIL_LEN_MAX + 1];
	bool late; /* our wait ran out before gRPC's deadline did */
	struct budget budget;
	ProtobufCMessage *msg;
};

static void answer_fini(struct answer *a)
{
	if (a->msg)
		protobuf_c_message_free_unpacked(a->msg, &a->budget.a);
	a->msg = NULL;
}

struct client {
	struct sys *s;
	grpc_channel *ch;
	struct podres *p;
};

/* The details come from the peer: control characters become '?', the rest
 * is cut at DETAIL_LEN_MAX bytes (never inside a UTF-8 sequence). */
static void details_copy(char *dst, const uint8_t *src, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < DETAIL_LEN_MAX; i++) {
		uint8_t c = src[i];
		dst[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (k == DETAIL_LEN_MAX)
		while (k > 0 && ((uint8_t)dst[k - 1] & 0xc0) == 0x80)
			k--;
	if (k > 0 && ((uint8_t)dst[k - 1] & 0xc0) == 0xc0)
		k--;
	dst[k] = '\0';
}

static void unpack(struct client *c, const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb,
		   struct answer *a)
{
	grpc_byte_buffer_reader reader;
	if (!grpc_byte_buffer_reader_init(&reader, bb))
		return; /* a compression it does not know: malformed */
	grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
	grpc_byte_buffer_reader_destroy(&reader);
	size_t len = GRPC_SLICE_LENGTH(all);
	/* gRPC holds the bound already; this holds it if it did not. */
	if (len > c->s->podres_msg_max) {
		a->status = GRPC_STATUS_RESOURCE_EXHAUSTED;
		snprintf(a->details, sizeof(a->details), "larger than max");
	} else {
		a->budget.a = (ProtobufCAllocator){budget_alloc, budget_free, &a->budget};
		size_t max = c->s->podres_msg_max;
		a->budget.left = max > SIZE_MAX / UNPACK_FACTOR ? SIZE_MAX : max * UNPACK_FACTOR;
		a->msg = protobuf_c_message_unpack(d, &a->budget.a, len, GRPC_SLICE_START_PTR(all));
	}
	grpc_slice_unref(all);
}

/* One unary call of method with req; the answer a descriptor d message. */
static int rpc(struct client *c, const char *method, const ProtobufCMessage *req,
	       const ProtobufCMessageDescriptor *d, struct answer *a)
{
	memset(a, 0, sizeof(*a));
	size_t n = protobuf_c_message_get_packed_size(req);
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	protobuf_c_message_pack(req, buf);
	grpc_slice req_slice = grpc_slice_from_copied_buffer((const char *)buf, n);
	free(buf);
	grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&req_slice, 1);
	grpc_slice_unref(req_slice);

	grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
	gpr_timespec deadline =
		gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
			     gpr_time_from_millis(c->s->podres_timeout_ms, GPR_TIMESPAN));
	grpc_call *call = grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
						   grpc_slice_from_static_string(method), NULL,
						   deadline, NULL);
	grpc_metadata_array md_initial, md_trailing;
	grpc_metadata_array_init(&md_initial);
	grpc_metadata_array_init(&md_trailing);
	grpc_byte_buffer *recv = NULL;
	grpc_status_code status = GRPC_STATUS_UNKNOWN;
	grpc_slice details = grpc_empty_slice();
	const char *error_string = NULL;

	grpc_op ops[6];
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &md_initial;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &md_trailing;
	ops[5].data.recv_status_on_client.status = &status;
	ops[5].data.recv_status_on_client.status_details = &details;
	ops[5].data.recv_status_on_client.error_string = &error_string;

	void *tag = a;
	if (grpc_call_start_batch(call, ops, 6, tag, NULL) != GRPC_CALL_OK) {
		status = GRPC_STATUS_INTERNAL;
		snprintf(a->details, sizeof(a->details), "the call could not start");
	} else {
		gpr_timespec wait =
			gpr_time_add(deadline, gpr_time_from_millis(WAIT_MARGIN_MS, GPR_TIMESPAN));
		grpc_event ev = grpc_completion_queue_pluck(cq, tag, wait, NULL);
		if (ev.type == GRPC_QUEUE_TIMEOUT) {
			/* Cancelled, the batch completes at once. */
			a->late = true;
			grpc_call_cancel_with_status(call, GRPC_STATUS_DEADLINE_EXCEEDED,
						     "deadline", NULL);
			grpc_completion_queue_pluck(cq, tag, gpr_inf_future(GPR_CLOCK_MONOTONIC),
						    NULL);
		}
		details_copy(a->details, GRPC_SLICE_START_PTR(details), GRPC_SLICE_LENGTH(details));
	}
	a->status = status;
	if (status == GRPC_STATUS_OK && recv)
		unpack(c, d, recv, a);

	grpc_byte_buffer_destroy(recv);
	grpc_byte_buffer_destroy(send);
	grpc_slice_unref(details);
	gpr_free((void *)error_string);
	grpc_metadata_array_destroy(&md_initial);
	grpc_metadata_array_destroy(&md_trailing);
	grpc_call_unref(call);
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_pluck(cq, tag, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL)
		       .type != GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
	return 0;
}

static const char *status_name(grpc_status_code s)
{
	static const char *const names[] = {
		[GRPC_STATUS_OK] = "OK",
		[GRPC_STATUS_CANCELLED] = "CANCELLED",
		[GRPC_STATUS_UNKNOWN] = "UNKNOWN",
		[GRPC_STATUS_INVALID_ARGUMENT] = "INVALID_ARGUMENT",
		[GRPC_STATUS_DEADLINE_EXCEEDED] = "DEADLINE_EXCEEDED",
		[GRPC_STATUS_NOT_FOUND] = "NOT_FOUND",
		[GRPC_STATUS_ALREADY_EXISTS] = "ALREADY_EXISTS",
		[GRPC_STATUS_PERMISSION_DENIED] = "PERMISSION_DENIED",
		[GRPC_STATUS_RESOURCE_EXHAUSTED] = "RESOURCE_EXHAUSTED",
		[GRPC_STATUS_FAILED_PRECONDITION] = "FAILED_PRECONDITION",
		[GRPC_STATUS_ABORTED] = "ABORTED",
		[GRPC_STATUS_OUT_OF_RANGE] = "OUT_OF_RANGE",
		[GRPC_STATUS_UNIMPLEMENTED] = "UNIMPLEMENTED",
		[GRPC_STATUS_INTERNAL] = "INTERNAL",
		[GRPC_STATUS_UNAVAILABLE] = "UNAVAILABLE",
		[GRPC_STATUS_DATA_LOSS] = "DATA_LOSS",
		[GRPC_STATUS_UNAUTHENTICATED] = "UNAUTHENTICATED",
	};
	if ((unsigned)s < sizeof(names) / sizeof(names[0]) && names[s])
		return names[s];
	return "status out of range";
}

static void size_text(size_t n, char *buf, size_t size)
{
	if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, size, "%zu MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, size, "%zu KiB", n >> 10);
	else
		snprintf(buf, size, "%zu bytes", n);
}

/* What went wrong with a call, for people: "deadline of 2000 ms passed". */
static void answer_why(const struct client *c, const struct answer *a, char *buf, size_t size)
{
	char bound[32];
	size_text(c->s->podres_msg_max, bound, sizeof(bound));
	if (a->late || a->status == GRPC_STATUS_DEADLINE_EXCEEDED)
		snprintf(buf, size, "deadline of %d ms passed", c->s->podres_timeout_ms);
	else if (a->status == GRPC_STATUS_RESOURCE_EXHAUSTED && strstr(a->details, "larger than"))
		snprintf(buf, size, "answer larger than %s", bound);
	else if (a->status != GRPC_STATUS_OK)
		snprintf(buf, size, "%s: %s", status_name(a->status),
			 a->details[0] ? a->details : "(no details)");
	else if (a->budget.exhausted)
		snprintf(buf, size, "answer larger than %zu times %s once unpacked",
			 (size_t)UNPACK_FACTOR, bound);
	else
		snprintf(buf, size, "malformed answer");
}

static int note_set(char **ret, const char *socket, const char *lead, const char *what)
{
	char *s = NULL;
	if (asprintf(&s, "kubelet pod-resources API at %s: %s%s", socket, lead, what) < 0)
		return -ENOMEM;
	free(*ret);
	*ret = s;
	return 0;
}

static int read_list(struct client *c)
{
	V1__ListPodResourcesRequest req = V1__LIST_POD_RESOURCES_REQUEST__INIT;
	struct answer a;
	char why[DETAIL_LEN_MAX + 64];
	int r = rpc(c, "/v1.PodResourcesLister/List", &req.base,
		    &v1__list_pod_resources_response__descriptor, &a);
	if (r < 0)
		return r;
	if (a.msg) {
		c->p->state = PODRES_OK;
		r = podres_copy_list(c->p, (const V1__ListPodResourcesResponse *)a.msg);
	} else {
		c->p->state = PODRES_FAILED;
		answer_why(c, &a, why, sizeof(why));
		r = note_set(&c->p->note, c->s->podres_socket, "", why);
	}
	answer_fini(&a);
	return r;
}

static int read_allocatable(struct client *c)
{
	V1__AllocatableResourcesRequest req = V1__ALLOCATABLE_RESOURCES_REQUEST__INIT;
	struct answer a;
	char why[DETAIL_LEN_MAX + 64];
	int r = rpc(c, "/v1.PodResourcesLister/GetAllocatableResources", &req.base,
		    &v1__allocatable_resources_response__descriptor, &a);
	if (r < 0)
		return r;
	if (a.msg) {
		c->p->alloc_known = true;
		r = podres_copy_alloc(c->p, (const V1__AllocatableResourcesResponse *)a.msg);
	} else {
		answer_why(c, &a, why, sizeof(why));
		r = note_set(&c->p->alloc_note, c->s->podres_socket,
			     "GetAllocatableResources: ", why);
	}
	answer_fini(&a);
	return r;
}

/* Whether the kubelet answers Get: asked of the first pod List named, or of
 * a pod that cannot exist when it named none. A kubelet with Get answers
 * that one "not found"; one without it UNIMPLEMENTED (or, gate off, an
 * error saying Get is disabled). */
static int probe_get(struct client *c)
{
	V1__GetPodResourcesRequest req = V1__GET_POD_RESOURCES_REQUEST__INIT;
	const struct podres *p = c->p;
	bool listed = p->n_pods > 0;
	req.pod_namespace = listed ? p->pods[0].ns : "ibvf-probe-";
	req.pod_name = listed ? p->pods[0].name : "ibvf-probe-";
	struct answer a;
	int r = rpc(c, "/v1.PodResourcesLister/Get", &req.base,
		    &v1__get_pod_resources_response__descriptor, &a);
	if (r < 0)
		return r;
	if (a.msg)
		c->p->get_known = true;
	else if (!listed && a.status != GRPC_STATUS_UNIMPLEMENTED && strstr(a.details, "not found"))
		c->p->get_known = true;
	answer_fini(&a);
	return 0;
}

/* Why the socket at the node's path is not used, into p (state, note):
 * 1 when it is not, 0 when it is a socket of root (or of this user). */
static int socket_check(struct sys *s, struct podres *p)
{
	const char *path = s->podres_socket;
	struct stat st;
	char why[128];
	sys_traced(s, path);
	if (fstatat(s->rootfd, sys_relpath(path), &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			p->state = PODRES_ABSENT;
			return 1;
		}
		p->state = PODRES_FAILED;
		snprintf(why, sizeof(why), "cannot look at the socket: %s", strerror(errno));
		return note_set(&p->note, path, "", why) < 0 ? -ENOMEM : 1;
	}
	const char *kind = NULL;
	if (S_ISLNK(st.st_mode))
		kind = "a symbolic link";
	else if (S_ISREG(st.st_mode))
		kind = "a regular file";
	else if (S_ISDIR(st.st_mode))
		kind = "a directory";
	else if (S_ISFIFO(st.st_mode))
		kind = "a FIFO";
	else if (!S_ISSOCK(st.st_mode))
		kind = "a device";
	if (kind)
		snprintf(why, sizeof(why), "not used: it is %s, not a socket", kind);
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		snprintf(why, sizeof(why), "not used: the socket belongs to uid %u, not to root",
			 (unsigned)st.st_uid);
	else
		return 0;
	p->state = PODRES_REFUSED;
	return note_set(&p->note, path, "", why) < 0 ? -ENOMEM : 1;
}

/* "unix:" and the path, percent-encoded as gRPC's URI parser decodes it
 * (a '%', '?' or '#' in a --root would mean something else). */
static int target_make(const struct sys *s, char *buf, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	char path[PATH_MAX * 2];
	int n = snprintf(path, sizeof(path), "%s%s", strcmp(s->root, "/") ? s->root : "",
			 s->podres_socket);
	/* sockaddr_un's sun_path: 108 bytes with the NUL. */
	if (n < 0 || n >= 108)
		return -ENAMETOOLONG;
	size_t k = (size_t)snprintf(buf, size, "unix:");
	for (const char *c = path; *c; c++) {
		bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9') || strchr("/._-~", *c);
		if (k + 4 > size)
			return -ENAMETOOLONG;
		if (plain) {
			buf[k++] = *c;
		} else {
			buf[k++] = '%';
			buf[k++] = hex[(uint8_t)*c >> 4];
			buf[k++] = hex[(uint8_t)*c & 15];
		}
	}
	buf[k] = '\0';
	return 0;
}

int linux_podres_read(struct sys *s, struct podres *ret)
{
	int r = socket_check(s, ret);
	if (r != 0)
		return r < 0 ? r : 0;
	char target[8 + 3 * 108];
	if (target_make(s, target, sizeof(target)) < 0) {
		ret->state = PODRES_FAILED;
		return note_set(&ret->note, s->podres_socket,
				"the path is too long for a unix socket", "");
	}

	/* gRPC's threads, made during a read or later by one another, inherit
	 * this mask: with the asynchronous signals blocked, SIGINT and SIGTERM
	 * go to ibvf's own threads, whose handlers and poll()s wait for them,
	 * never to a gRPC thread. One arriving during the read waits for its
	 * end (at most three deadlines). */
	sigset_t block, old;
	sigfillset(&block);
	static const int sync_signals[] = {SIGSEGV, SIGBUS,  SIGFPE, SIGILL,
					   SIGTRAP, SIGABRT, SIGSYS};
	for (size_t i = 0; i < sizeof(sync_signals) / sizeof(sync_signals[0]); i++)
		sigdelset(&block, sync_signals[i]);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	pthread_once(&grpc_once, grpc_start);
	int max = s->podres_msg_max > INT_MAX ? INT_MAX : (int)s->podres_msg_max;
	grpc_arg args[] = {
		{GRPC_ARG_INTEGER, GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, {.integer = max}},
		/* The requests are a few names: no more is ever sent. */
		{GRPC_ARG_INTEGER, GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, {.integer = 4096}},
		{GRPC_ARG_INTEGER, GRPC_ARG_ENABLE_RETRIES, {.integer = 0}},
		/* Each read its own connection: one kept from an earlier read
		 * could be to a kubelet since restarted at the same path. */
		{GRPC_ARG_INTEGER, GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, {.integer = 1}},
	};
	grpc_channel_args ch_args = {sizeof(args) / sizeof(args[0]), args};
	grpc_channel_credentials *creds = grpc_insecure_credentials_create();
	struct client c = {.s = s, .p = ret};
	c.ch = grpc_channel_create(target, creds, &ch_args);
	grpc_channel_credentials_release(creds);

	r = read_list(&c);
	if (r >= 0 && ret->state == PODRES_OK)
		r = read_allocatable(&c);
	if (r >= 0 && ret->state == PODRES_OK)
		r = probe_get(&c);
	grpc_channel_destroy(c.ch);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}
