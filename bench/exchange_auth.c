// SPDX-License-Identifier: MIT
/* The shared secret and the MACs of the control channel (exchange_auth.h). */
#include "exchange_auth.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int exchange_key_load(const char *path, struct exchange_key *ret, struct err *e)
{
	struct exchange_key k = {0};
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err_set(e, errno == ELOOP ? ELOOP : errno, "cannot open key file '%s'%s",
			       path, errno == ELOOP ? " (a symbolic link)" : "");
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = err_set(e, errno, "cannot stat key file '%s'", path);
	else if (!S_ISREG(st.st_mode))
		r = err_setx(e, EINVAL, "key file '%s' is not a regular file", path);
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		r = err_setx(e, EPERM, "key file '%s' belongs to uid %u, not to this user or root",
			     path, (unsigned int)st.st_uid);
	else if (st.st_mode & 077)
		r = err_setx(e, EPERM,
			     "key file '%s' is readable or writable by others (mode %04o): chmod "
			     "600 it",
			     path, (unsigned int)(st.st_mode & 07777));
	else if (st.st_size > EXCHANGE_KEY_MAX + 1)
		r = err_setx(e, EINVAL, "key file '%s' has %lld bytes, over the limit %d", path,
			     (long long)st.st_size, EXCHANGE_KEY_MAX);
	if (r == 0) {
		ssize_t n = read(fd, k.bytes, sizeof(k.bytes));
		if (n < 0)
			r = err_set(e, errno, "cannot read key file '%s'", path);
		else {
			k.len = (size_t)n;
			if (k.len && k.bytes[k.len - 1] == '\n')
				k.len--;
			if (k.len < EXCHANGE_KEY_MIN)
				r = err_setx(e, EINVAL,
					     "key file '%s' holds %zu bytes, want at least %d",
					     path, k.len, EXCHANGE_KEY_MIN);
		}
	}
	close(fd);
	if (r < 0) {
		exchange_key_clear(&k);
		return r;
	}
	k.set = true;
	*ret = k;
	exchange_key_clear(&k);
	return 0;
}

void exchange_key_clear(struct exchange_key *k)
{
	OPENSSL_cleanse(k, sizeof(*k));
}

int exchange_nonce(uint8_t out[EXCHANGE_NONCE_LEN], struct err *e)
{
	size_t got = 0;
	while (got < EXCHANGE_NONCE_LEN) {
		ssize_t n = getrandom(out + got, EXCHANGE_NONCE_LEN - got, 0);
		if (n < 0 && errno != EINTR)
			return err_set(e, errno, "cannot read random bytes");
		got += n > 0 ? (size_t)n : 0;
	}
	return 0;
}

/* HMAC-SHA256(key, label || peer nonce || m encoded with a zero MAC). */
static int mac_of(const struct exchange_key *k, const struct exchange_msg *m,
		  const uint8_t peer_nonce[EXCHANGE_NONCE_LEN], uint8_t out[EXCHANGE_MAC_LEN],
		  struct err *e)
{
	static const char label[16] = "ibvf-bench-v3";
	uint8_t buf[sizeof(label) + EXCHANGE_NONCE_LEN + EXCHANGE_MAX_MSG];
	struct exchange_msg z = *m;
	memset(z.tag.mac, 0, sizeof(z.tag.mac));
	memcpy(buf, label, sizeof(label));
	buf[sizeof(label) - 1] = (uint8_t)m->type; /* a hello's MAC is no accept's */
	memcpy(buf + sizeof(label), peer_nonce, EXCHANGE_NONCE_LEN);
	int n = exchange_encode(&z, buf + sizeof(label) + EXCHANGE_NONCE_LEN, EXCHANGE_MAX_MSG, e);
	if (n < 0)
		return n;
	unsigned int len = EXCHANGE_MAC_LEN;
	if (!HMAC(EVP_sha256(), k->bytes, (int)k->len, buf,
		  sizeof(label) + EXCHANGE_NONCE_LEN + (size_t)n, out, &len) ||
	    len != EXCHANGE_MAC_LEN)
		return err_setx(e, EIO, "cannot compute the HMAC");
	return 0;
}

int exchange_seal(const struct exchange_key *k, struct exchange_msg *m,
		  const uint8_t peer_nonce[EXCHANGE_NONCE_LEN], struct err *e)
{
	return mac_of(k, m, peer_nonce, m->tag.mac, e);
}

bool exchange_verify(const struct exchange_key *k, const struct exchange_msg *m,
		     const uint8_t peer_nonce[EXCHANGE_NONCE_LEN])
{
	uint8_t want[EXCHANGE_MAC_LEN];
	struct err ignored;
	if (!k->set || mac_of(k, m, peer_nonce, want, &ignored) < 0)
		return false;
	bool ok = CRYPTO_memcmp(want, m->tag.mac, EXCHANGE_MAC_LEN) == 0;
	OPENSSL_cleanse(want, sizeof(want));
	return ok;
}
