/*
 * ibal soft provider: pcap capture files of InfiniBand packets.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_pcap.h
 * @brief Appends InfiniBand packets (LRH through VCRC) to a classic pcap
 * file with nanosecond timestamps, either as LINKTYPE_ERF records of ERF type
 * InfiniBand (readable by Wireshark) or as LINKTYPE_INFINIBAND records.
 *
 * The file is opened with O_APPEND and never truncated: the global header is
 * written only when the file is empty (under an flock, so two processes
 * opening it at once write one header), and an existing file is accepted
 * only if its header is one this writer would have written. Each record is
 * one writev(), which Linux appends atomically on local file systems, so
 * any number of threads and processes may write to one file. Thread safety:
 * soft_pcap_write may run concurrently with itself; open and close must not
 * race with other use of the same writer.
 */
#ifndef SOFT_PCAP_H
#define SOFT_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** LINKTYPE_ERF: each record is an Endace ERF header and the frame. */
#define SOFT_PCAP_LINKTYPE_ERF 197
/** LINKTYPE_INFINIBAND: each record is the packet, LRH first. */
#define SOFT_PCAP_LINKTYPE_INFINIBAND 247

/** A capture file writer. Opaque. */
typedef struct soft_pcap soft_pcap_t;

/**
 * Expands a path template: each `%p` becomes @p pid in decimal, `%%`
 * becomes `%`; other characters are copied.
 * @param tmpl the template.
 * @param pid the process ID to substitute.
 * @param out receives the NUL-terminated path.
 * @param cap size of @p out.
 * @return IB_SUCCESS; IB_OVERFLOW if the result does not fit;
 * IB_INVALID_PARAMETER if a pointer is NULL or @p cap is 0.
 */
ib_api_status_t soft_pcap_expand_path(const char *tmpl, pid_t pid, char *out, size_t cap);

/**
 * Opens (creating it, mode 0600, if needed) the capture file named by a path
 * template for appending.
 * @param tmpl the path; `%p` is replaced by the caller's process ID.
 * @param linktype SOFT_PCAP_LINKTYPE_ERF or SOFT_PCAP_LINKTYPE_INFINIBAND.
 * @param pp_pcap receives the writer.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER if a pointer is NULL or the link
 * type is neither; IB_OVERFLOW if the path is too long; IB_INVALID_SETTING if
 * the file is not empty and not a pcap of this link type and resolution;
 * IB_INSUFFICIENT_MEMORY; IB_ERROR if the file could not be opened or the
 * header written.
 */
ib_api_status_t soft_pcap_open(const char *tmpl, uint32_t linktype, soft_pcap_t **pp_pcap);

/**
 * Appends one packet with the current time (CLOCK_REALTIME). Write errors
 * are ignored (a capture never disturbs the traffic).
 * @param pcap the writer.
 * @param pkt the packet, LRH first.
 * @param len its length.
 * @param dropped TRUE to mark the packet as lost: in ERF records the "RX
 * error" flag is set; LINKTYPE_INFINIBAND files cannot mark it, so the
 * packet is not written.
 */
void soft_pcap_write(soft_pcap_t *pcap, const void *pkt, size_t len, boolean_t dropped);

/**
 * The path the writer appends to (the template expanded).
 * @param pcap the writer.
 * @return the path, valid until soft_pcap_close.
 */
const char *soft_pcap_path(const soft_pcap_t *pcap);

/**
 * Closes the file and frees the writer. NULL is ignored.
 * @param pcap the writer.
 */
void soft_pcap_close(soft_pcap_t *pcap);

#ifdef __cplusplus
}
#endif

#endif /* SOFT_PCAP_H */
