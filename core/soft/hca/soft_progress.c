/*
 * ibal soft provider: the progress thread of a soft CA: packet reception, dispatch, upcalls.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One thread per CA polls its ports' receive rings; after ca->spin_ns with
 * nothing to do it arms the rings (senders then ring the port's socket) and
 * waits in epoll on the sockets and an eventfd that soft_ca_defer() writes
 * only while the thread sleeps.
 * It parses each packet (malformed ones are dropped and counted), gives
 * UD packets for QP0/QP1 to the port's management agents
 * (soft_mad_agent.c), delivers multicast UD packets to the attached QPs
 * (soft_mcast.c), finds the QP of other packets by BTH:DestQP (QP0/QP1 per
 * port) and hands them to the transport (all of it under rx_lock, which
 * the writers of the CA's tables take too: soft_tab_write()): UD here, RC/UC
 * to soft_rc_recv. Only an ACTIVE port passes data packets; SMPs also
 * pass in INIT and ARMED. Upcalls queued by any
 * thread with soft_ca_defer() are delivered here, in order, with no lock
 * held; soft_ca_purge() lets a destroy drop an object's pending upcalls and
 * wait out a running one.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "soft_hca.h"
#include "soft_rc.h"
#include "soft_mad_agent.h"
#include "ibal_errno.h"
#include "ibal_log.h"

static void wake(soft_ca_t *ca)
{
	uint64_t one = 1;
	ssize_t r;

	do
		r = write(ca->evfd, &one, sizeof(one));
	while (r < 0 && errno == EINTR);
}

void soft_ca_defer(soft_ca_t *ca, void *prov_obj, void *al_obj, int comp,
		   ib_async_event_t code, uint64_t vendor)
{
	soft_upcall_t *u = cl_zalloc(sizeof(*u));

	if (!u) {
		/* Nothing to answer to: the log says what the client misses. */
		IBAL_ERR(IBAL_SUB_SOFT, "CA 0x%016" PRIx64 ": no memory: %s lost (code %u)",
			 cl_ntoh64(ca->guid),
			 comp == SOFT_UPCALL_COMP ? "a completion callback" :
			 comp == SOFT_UPCALL_ASYNC ? "an asynchronous event" :
			 "a port change event",
			 (unsigned)code);
		return;
	}
	u->prov_obj = prov_obj;
	u->al_obj = al_obj;
	u->comp = comp;
	u->code = code;
	u->vendor = vendor;
	pthread_mutex_lock(&ca->ev_lock);
	cl_qlist_insert_tail(&ca->ev_list, &u->item);
	pthread_mutex_unlock(&ca->ev_lock);
	/* Pairs with arm_all: it sees the upcall or we see it asleep. The
	 * progress thread itself, and a spinning one, need no eventfd. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ca->sleeping, __ATOMIC_RELAXED))
		wake(ca);
}

void soft_ca_purge(soft_ca_t *ca, void *prov_obj)
{
	cl_list_item_t *it, *next;

	pthread_mutex_lock(&ca->ev_lock);
	for (it = cl_qlist_head(&ca->ev_list); it != cl_qlist_end(&ca->ev_list); it = next) {
		next = cl_qlist_next(it);
		if (((soft_upcall_t *)it)->prov_obj == prov_obj) {
			cl_qlist_remove_item(&ca->ev_list, it);
			cl_free(it);
		}
	}
	while (ca->busy_obj == prov_obj && !cl_is_current_thread(&ca->thread))
		pthread_cond_wait(&ca->ev_cond, &ca->ev_lock);
	pthread_mutex_unlock(&ca->ev_lock);
}

static void deliver(soft_ca_t *ca)
{
	soft_upcall_t *u;

	pthread_mutex_lock(&ca->ev_lock);
	while (cl_qlist_count(&ca->ev_list)) {
		u = (soft_upcall_t *)cl_qlist_remove_head(&ca->ev_list);
		ca->busy_obj = u->prov_obj;
		pthread_mutex_unlock(&ca->ev_lock);
		if (u->comp == SOFT_UPCALL_COMP && soft_upcalls.cq_comp)
			soft_upcalls.cq_comp(u->al_obj);
		else if (u->comp == SOFT_UPCALL_ASYNC && soft_upcalls.async_event)
			soft_upcalls.async_event(u->al_obj, u->code, u->vendor);
		else if (u->comp == SOFT_UPCALL_PORT && soft_upcalls.port_change)
			soft_upcalls.port_change(u->al_obj, (uint8_t)u->vendor);
		cl_free(u);
		pthread_mutex_lock(&ca->ev_lock);
		ca->busy_obj = NULL;
		pthread_cond_broadcast(&ca->ev_cond);
	}
	pthread_mutex_unlock(&ca->ev_lock);
}

/* The QP a packet is for (rx_lock held), or NULL. */
static soft_qp_t *find_qp(soft_port_t *port, uint32_t qpn)
{
	if (qpn <= 1)
		return port->spl[qpn];
	return qpn < SOFT_MAX_QPS ? port->ca->qp_tab[qpn] : NULL;
}

void soft_progress_packet_flags(soft_port_t *port, const uint8_t *buf, size_t len, uint32_t flags)
{
	soft_pkt_t pkt;
	soft_qp_t *qp;
	uint8_t tr, state;
	uint16_t dlid;

	if (soft_pkt_parse_flags(buf, len, (flags & SOFT_FABRIC_NO_CRC) ? SOFT_PARSE_NO_CRC : 0,
				 &pkt) != SOFT_WIRE_OK) {
		__atomic_add_fetch(&port->mgmt.rcv_errors, 1, __ATOMIC_RELAXED);
		return;
	}
	pkt.link_flags = flags;
	tr = pkt.bth.opcode & SOFT_TRANSPORT_MASK;
	dlid = pkt.lrh.dlid;
	/* Management datagrams meet the port's agents first (soft_mad_agent.c);
	 * SMPs pass in INIT and ARMED too. */
	if (tr == SOFT_TRANSPORT_UD && pkt.bth.dest_qp <= 1 && soft_agent_recv(port, &pkt))
		return;
	state = __atomic_load_n(&port->link_state, __ATOMIC_ACQUIRE);
	if (state != IB_LINK_ACTIVE &&
	    !(pkt.bth.dest_qp == 0 && tr == SOFT_TRANSPORT_UD && state >= IB_LINK_INIT))
		return; /* a link that is not active passes no data packets */
	if (dlid >= 0xC000 && dlid != IB_LID_PERMISSIVE) {
		if (tr == SOFT_TRANSPORT_UD && pkt.bth.dest_qp == SOFT_QPN_MASK)
			soft_mcast_recv(port, &pkt);
		return;
	}
	if (dlid != soft_port_lid(port) && !(dlid == IB_LID_PERMISSIVE && pkt.bth.dest_qp == 0))
		return;
	qp = find_qp(port, pkt.bth.dest_qp);
	if (qp && qp->spl_port && qp->spl_port != port->num)
		qp = NULL;
	if (qp && tr == SOFT_TRANSPORT_UD && qp->cls >= PROV_QPC_UD)
		soft_ud_recv(port, qp, &pkt);
	else if (qp && (tr == SOFT_TRANSPORT_RC || tr == SOFT_TRANSPORT_UC))
		soft_rc_recv(qp, port, &pkt);
}

/*
 * Handles what waits at a port, at most SOFT_DRAIN_BATCH packets (then the
 * caller sends the queued responses); how many there were. Only the
 * progress thread reads the port's socket (@p sock): a doorbell taken
 * from it by a CQ poll would leave that thread asleep while packets wait.
 *
 * A CQ poll (@p cq) stops once the packets have given that CQ a completion,
 * unless the next packet was already waiting when the last was taken and is
 * a request: a stream is taken in batches (its ACKs coalesced over them),
 * but a response (in a ping-pong, the ACK of the message just answered,
 * sent right after the answer) waits for the next poll rather than delay
 * the completion the poller looks for.
 */
static unsigned drain_port(soft_port_t *port, uint8_t *buf, boolean_t sock, const soft_cq_t *cq)
{
	uint8_t next[SOFT_LRH_LEN + SOFT_GRH_LEN + 1];
	unsigned n = 0;
	size_t len, seen = 0;
	ib_api_status_t st;

	while (n < SOFT_DRAIN_BATCH) {
		st = sock ? soft_fabric_poll(port->fp, buf, SOFT_FABRIC_MAX_PACKET, &len)
			  : soft_fabric_poll_ring(port->fp, buf, SOFT_FABRIC_MAX_PACKET, &len);
		if (st == IB_SUCCESS) {
			if (cq)
				seen = soft_fabric_ring_peek(port->fp, next, sizeof(next));
			soft_progress_packet_flags(port, buf, len, soft_fabric_rx_flags(port->fp));
			n++;
			if (cq && __atomic_load_n(&cq->avail, __ATOMIC_RELAXED) &&
			    (!seen || soft_pkt_peek_response(next, seen)))
				return n;
		} else if (st != IB_OVERFLOW) {
			return n;
		}
	}
	return n;
}

static unsigned drain_all(soft_ca_t *ca)
{
	unsigned i, n = 0;

	soft_lock(&ca->rx_lock);
	for (i = 0; i < ca->num_ports; i++)
		n += drain_port(&ca->port[i], ca->rx_buf, TRUE, NULL);
	soft_unlock(&ca->rx_lock);
	return n;
}

/* Does any port of the CA have a packet in its ring? A look without a lock. */
static boolean_t rx_ready(const soft_ca_t *ca)
{
	unsigned i;

	for (i = 0; i < ca->num_ports; i++)
		if (soft_fabric_ring_ready(ca->port[i].fp))
			return TRUE;
	return FALSE;
}

/*
 * The CA whose progress thread this is (NULL on other threads). Read on
 * every CQ poll: initial-exec, one load (a few bytes of static TLS), where
 * cl_is_current_thread() costs a call into complib and one to
 * __tls_get_addr.
 */
static __thread const soft_ca_t *progress_ca __attribute__((tls_model("initial-exec")));

/* soft_progress_inline()'s work once it holds rx_lock, out of line: the
 * empty poll before it then saves no registers. */
static __attribute__((noinline)) boolean_t drain_polled(soft_ca_t *ca, const soft_cq_t *cq)
{
	unsigned i, n = 0;

	for (i = 0; i < ca->num_ports; i++)
		n += drain_port(&ca->port[i], ca->rx_buf, FALSE, cq);
	soft_unlock(&ca->rx_lock);
	/* The responses (coalesced ACKs) are the caller's to send: see soft_progress_flush. */
	return n != 0;
}

boolean_t soft_progress_inline(soft_ca_t *ca, const soft_cq_t *cq, boolean_t polling)
{
	/* Polls from callbacks (on the progress thread) do not count. */
	if (polling && progress_ca != ca)
		__atomic_store_n(&ca->inline_seq, __atomic_load_n(&ca->inline_seq, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED); /* two pollers may count once: it only has to move */
	/* Most polls of a waiting application find nothing: no lock for them
	 * (what is queued, the poll sent before it looked: soft_poll_cq). */
	if (!rx_ready(ca) || !soft_trylock(&ca->rx_lock))
		return FALSE;
	return drain_polled(ca, cq);
}

static void resume_pending(soft_ca_t *ca);

void soft_progress_flush_queued(soft_ca_t *ca)
{
	resume_pending(ca);
}

void soft_progress_yield(soft_ca_t *ca)
{
	uint64_t seq = __atomic_load_n(&ca->inline_seq, __ATOMIC_RELAXED);

	if (__atomic_load_n(&ca->inline_ack, __ATOMIC_RELAXED) == seq)
		return;
	__atomic_store_n(&ca->inline_ack, seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ca->sleeping, __ATOMIC_RELAXED))
		wake(ca);
}

boolean_t soft_ca_pend(soft_ca_t *ca, uint32_t qpn, boolean_t do_wake)
{
	uint32_t *p;

	soft_lock(&ca->pend_lock);
	if (ca->n_pend == ca->cap_pend) {
		p = soft_mem_resize(ca->pend, ca->cap_pend * sizeof(*p),
				    (ca->cap_pend ? 2 * ca->cap_pend : 16) * sizeof(*p));
		if (!p) {
			soft_unlock(&ca->pend_lock);
			return FALSE;
		}
		ca->pend = p;
		ca->cap_pend = ca->cap_pend ? 2 * ca->cap_pend : 16;
	}
	ca->pend[ca->n_pend] = qpn;
	__atomic_store_n(&ca->n_pend, ca->n_pend + 1, __ATOMIC_RELEASE);
	soft_unlock(&ca->pend_lock);
	if (do_wake)
		wake(ca);
	return TRUE;
}

/* The QP soft_ca_pend() queued by @p key (soft_qp_pend_key()), or NULL if
 * it is gone (tab_lock held). */
static soft_qp_t *pend_qp(soft_ca_t *ca, uint32_t key)
{
	if (key < SOFT_MAX_QPS)
		return ca->qp_tab[key];
	key -= SOFT_MAX_QPS;
	return key / 2u < ca->num_ports ? ca->port[key / 2u].spl[key % 2u] : NULL;
}

/* Resumes the QPs whose responses wait for room; they queue themselves again
 * if they must wait on. By QP number: a QP destroyed meanwhile is skipped. */
static void resume_pending(soft_ca_t *ca)
{
	uint32_t *list, n, i, cap;
	soft_qp_t *qp;

	if (!__atomic_load_n(&ca->n_pend, __ATOMIC_ACQUIRE))
		return;
	soft_lock(&ca->pend_lock);
	list = ca->pend;
	cap = ca->cap_pend;
	n = ca->n_pend;
	ca->pend = NULL;
	ca->cap_pend = 0;
	__atomic_store_n(&ca->n_pend, 0, __ATOMIC_RELEASE);
	soft_unlock(&ca->pend_lock);
	soft_rwlock_read(&ca->tab_lock);
	for (i = 0; i < n; i++) {
		qp = pend_qp(ca, list[i]);
		if (!qp)
			continue;
		if (qp->cls >= PROV_QPC_UD)
			soft_qp_resume_sends(qp);
		else
			soft_rc_resume(qp);
	}
	soft_rwlock_read_end(&ca->tab_lock);
	/* The list is the next one unless the QPs queued themselves anew: no
	 * allocation per receive batch. */
	soft_lock(&ca->pend_lock);
	if (!ca->pend) {
		ca->pend = list;
		ca->cap_pend = cap;
		list = NULL;
	}
	soft_unlock(&ca->pend_lock);
	cl_free(list);
}

/*
 * Did CQ polls take packets themselves since the thread last looked (and
 * their poller has not rearmed since)? @p seen: the count it saw last.
 */
static boolean_t polled_inline(soft_ca_t *ca, uint64_t *seen)
{
	uint64_t seq = __atomic_load_n(&ca->inline_seq, __ATOMIC_RELAXED);

	if (seq == *seen || seq == __atomic_load_n(&ca->inline_ack, __ATOMIC_RELAXED))
		return FALSE;
	*seen = seq;
	return TRUE;
}

/*
 * Does a CQ poller poll on? After polled_inline() saw a poll, a poller that
 * polls on (a busy-polling application: one poll every few hundred
 * nanoseconds) moves inline_seq again within SOFT_PROGRESS_POLLER_NS; one
 * that polled once and went to sleep does not: a thread that waits for an
 * armed CQ's event and, on its way, polls another CQ that is not armed (a
 * send CQ: the MAD dispatcher; the poll, rearm, poll, wait loop of verbs
 * programs with two CQs). Backing off for that poll would leave the
 * packets its armed CQ waits for at the port for SOFT_PROGRESS_BACKOFF_MS.
 */
static boolean_t poller_polls_on(soft_ca_t *ca, uint64_t seen)
{
	uint64_t start = soft_mono_ns();
	unsigned i;

	do {
		for (i = 0; i < 32; i++)
			ibal_cpu_relax();
		if (__atomic_load_n(&ca->inline_seq, __ATOMIC_RELAXED) != seen)
			return TRUE;
	} while (soft_mono_ns() - start < SOFT_PROGRESS_POLLER_NS);
	return FALSE;
}

/* Sleeps for the backoff period with only upcalls able to wake it. */
static void backoff(soft_ca_t *ca)
{
	struct pollfd pfd = { .fd = ca->evfd, .events = POLLIN };
	uint64_t cnt;
	size_t n;

	__atomic_store_n(&ca->sleeping, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* A poller that rearmed since we looked saw us awake and wrote no
	 * eventfd (soft_progress_yield): now that we are marked asleep, its
	 * acknowledgement is seen here, or it sees us asleep and wakes us. */
	if (__atomic_load_n(&ca->inline_ack, __ATOMIC_RELAXED) ==
	    __atomic_load_n(&ca->inline_seq, __ATOMIC_RELAXED)) {
		__atomic_store_n(&ca->sleeping, 0, __ATOMIC_RELAXED);
		return;
	}
	pthread_mutex_lock(&ca->ev_lock);
	n = cl_qlist_count(&ca->ev_list);
	pthread_mutex_unlock(&ca->ev_lock);
	if (!n && poll(&pfd, 1, SOFT_PROGRESS_BACKOFF_MS) > 0 && read(ca->evfd, &cnt, sizeof(cnt)) < 0)
		n = 0;
	__atomic_store_n(&ca->sleeping, 0, __ATOMIC_RELAXED);
}

/*
 * Before sleeping: arms every port's ring and the upcall queue. Returns the
 * epoll timeout: -1 to sleep until woken, 0 when something already waits
 * (nothing is left armed), a few milliseconds while a sender is writing.
 */
static int arm_all(soft_ca_t *ca)
{
	int timeout = -1;
	unsigned i;

	__atomic_store_n(&ca->sleeping, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&ca->ev_lock);
	if (cl_qlist_count(&ca->ev_list))
		timeout = 0;
	pthread_mutex_unlock(&ca->ev_lock);
	/* Responses waiting for room: look again soon, whatever wakes us. */
	if (timeout && __atomic_load_n(&ca->n_pend, __ATOMIC_ACQUIRE))
		timeout = SOFT_PROGRESS_PENDING_MS;
	/* The rings' read positions belong to whoever holds rx_lock. */
	soft_lock(&ca->rx_lock);
	for (i = 0; i < ca->num_ports && timeout; i++) {
		ib_api_status_t st = soft_fabric_port_arm(ca->port[i].fp);

		if (st == IB_NOT_DONE)
			timeout = 0;
		else if (st == IB_PENDING)
			timeout = SOFT_PROGRESS_PENDING_MS;
	}
	soft_unlock(&ca->rx_lock);
	return timeout;
}

static void disarm_all(soft_ca_t *ca)
{
	unsigned i;

	__atomic_store_n(&ca->sleeping, 0, __ATOMIC_RELAXED);
	for (i = 0; i < ca->num_ports; i++)
		soft_fabric_port_disarm(ca->port[i].fp);
}

/*
 * Reads what woke the thread: the eventfd's count and the ports' doorbells
 * (which drain_all reads with the packets). A port's packets are taken at
 * most SOFT_DRAIN_BATCH at a time, as drain_all takes them: the caller's
 * loop then delivers the upcalls they made (a MAD dispatcher's CQ event)
 * before it takes more. Taking a whole burst here first would leave that
 * thread asleep until the burst ends, while the burst uses up its receive
 * buffers.
 */
static void wait_events(soft_ca_t *ca, int timeout)
{
	struct epoll_event evs[SOFT_MAX_PORTS + 1];
	soft_port_t *port;
	ib_api_status_t st;
	uint64_t cnt;
	size_t len;
	unsigned got;
	int n, i;

	n = epoll_wait(ca->epfd, evs, SOFT_MAX_PORTS + 1, timeout);
	for (i = 0; i < n; i++) {
		if (evs[i].data.u32 == 0) {
			if (read(ca->evfd, &cnt, sizeof(cnt)) < 0)
				continue;
			continue;
		}
		/* A doorbell or datagrams: empty the socket, handling what the ring has too. */
		port = &ca->port[evs[i].data.u32 - 1];
		soft_lock(&ca->rx_lock);
		got = 0;
		do {
			st = soft_fabric_recv(port->fp, ca->rx_buf, SOFT_FABRIC_MAX_PACKET, &len);
			if (st == IB_SUCCESS)
				soft_progress_packet_flags(port, ca->rx_buf, len,
							   soft_fabric_rx_flags(port->fp));
		} while ((st == IB_SUCCESS || st == IB_OVERFLOW) && ++got < SOFT_DRAIN_BATCH);
		soft_unlock(&ca->rx_lock);
	}
}

static void progress_main(void *context)
{
	soft_ca_t *ca = context;
	uint64_t idle_since = 0, seen = 0;
	unsigned spins = 0;
	int timeout;

	progress_ca = ca;

	while (!__atomic_load_n(&ca->stop, __ATOMIC_ACQUIRE)) {
		resume_pending(ca);
		if (drain_all(ca)) {
			idle_since = 0;
		} else if (polled_inline(ca, &seen) && poller_polls_on(ca, seen)) {
			/* The application polls its CQs: they take the packets. */
			backoff(ca);
			idle_since = 0;
		} else if (!idle_since) {
			idle_since = soft_mono_ns();
		} else if (++spins % 16) {
			ibal_cpu_relax(); /* a spin costs no system call... */
		} else if (soft_mono_ns() - idle_since >= ca->spin_ns) {
			/* Idle for the whole spin: sleep until a doorbell or an upcall. */
			timeout = arm_all(ca);
			if (timeout)
				wait_events(ca, timeout);
			disarm_all(ca);
			idle_since = 0;
		} else {
			sched_yield(); /* ...but lets a thread that shares the processor run */
		}
		deliver(ca);
	}
}

ib_api_status_t soft_progress_start(soft_ca_t *ca)
{
	struct epoll_event ev;
	const char *what = NULL;
	ib_api_status_t st = IB_SUCCESS; /* when not the errno's */
	int err = 0;
	unsigned i;

	ca->evfd = -1;
	ca->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ca->epfd < 0) {
		what = "epoll_create1";
		err = errno;
		goto fail;
	}
	ca->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ca->evfd < 0) {
		what = "eventfd";
		err = errno;
		goto fail;
	}
	ca->rx_buf = cl_malloc(SOFT_FABRIC_MAX_PACKET);
	if (!ca->rx_buf) {
		what = "a receive buffer";
		err = ENOMEM;
		st = IB_INSUFFICIENT_MEMORY;
		goto fail;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = 0;
	if (epoll_ctl(ca->epfd, EPOLL_CTL_ADD, ca->evfd, &ev)) {
		what = "epoll_ctl";
		err = errno;
		goto fail;
	}
	for (i = 0; i < ca->num_ports; i++) {
		ev.data.u32 = i + 1;
		if (epoll_ctl(ca->epfd, EPOLL_CTL_ADD, soft_fabric_port_fd(ca->port[i].fp), &ev)) {
			what = "epoll_ctl";
			err = errno;
			goto fail;
		}
	}
	if (cl_thread_init(&ca->thread, progress_main, ca, "soft-progress") != CL_SUCCESS) {
		what = "a thread";
		err = EAGAIN;
		goto fail;
	}
	return IB_SUCCESS;
fail:
	IBAL_ERR(IBAL_SUB_SOFT, "CA 0x%016" PRIx64 ": no progress thread: %s: %s",
		 cl_ntoh64(ca->guid), what, strerror(err));
	if (ca->epfd >= 0)
		close(ca->epfd);
	if (ca->evfd >= 0)
		close(ca->evfd);
	ca->epfd = ca->evfd = -1;
	cl_free(ca->rx_buf);
	ca->rx_buf = NULL;
	return st != IB_SUCCESS ? st : ibal_status_of_errno(err);
}

void soft_progress_stop(soft_ca_t *ca)
{
	cl_list_item_t *it;

	if (ca->epfd < 0)
		return;
	__atomic_store_n(&ca->stop, 1, __ATOMIC_RELEASE);
	wake(ca);
	cl_thread_destroy(&ca->thread);
	close(ca->epfd);
	close(ca->evfd);
	ca->epfd = ca->evfd = -1;
	cl_free(ca->rx_buf);
	ca->rx_buf = NULL;
	cl_free(ca->pend);
	ca->pend = NULL;
	ca->cap_pend = 0;
	__atomic_store_n(&ca->n_pend, 0, __ATOMIC_RELEASE);
	while ((it = cl_qlist_remove_head(&ca->ev_list)) != cl_qlist_end(&ca->ev_list))
		cl_free(it);
}
