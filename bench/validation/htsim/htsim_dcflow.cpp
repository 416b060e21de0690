// htsim_dcflow: runs the flows of an htsim connection matrix (as
// `dcflow export --format htsim` writes them: every flow with a start time
// and a size) over TCP or DCTCP on htsim's FatTreeTopology, and prints each
// flow's completion time. Written against csg-htsim's API (commit 841d9e7);
// built outside htsim's tree by bench/validation/htsim/Makefile.
//
// Why a driver: htsim_tcp builds its own permutation of long-lived
// connections (datacenter/main_tcp.cpp:225-244) and the DCTCP drivers in
// datacenter/old_tests/ are not built. This one is what those drivers do
// (TcpSrc/DCTCPSrc, a TcpSink, a TcpRtxTimerScanner, a route out and the
// reverse route back at the same path index, as
// old_tests/main_dctcp_permutation.cpp:262-343), fed by the matrix.
//
// Output, one line per flow, times in picoseconds:
//   fct ID PACKETS START FCT      a finished flow
//   unfinished ID PACKETS START   a flow whose last ACK never came
//   timeouts N                    retransmission timeouts fired, all flows
// ID is the matrix's flow id; a flow finishes when its source receives the
// cumulative ACK of its last byte (htsim's own test, tcp.cpp:186).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "connection_matrix.h"
#include "dctcp.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "fat_tree_topology.h"
#include "network.h"
#include "tcp.h"
#include "tcppacket.h"

namespace {

EventList eventlist;

// One flow's record; `finish` stays 0 until its last ACK arrives.
struct Record {
    flowid_t id;
    uint64_t packets;
    simtime_picosec start;
    simtime_picosec finish = 0;
};

size_t unfinished_count = 0;
uint64_t timeouts = 0;

// A TCP or DCTCP source that notes when the ACK covering the flow's last
// byte arrives; everything else is htsim's source as it is.
template <class Source>
class Finishing : public Source {
public:
    Finishing(Record& record) : Source(NULL, NULL, eventlist), _record(record) {}

    // A timeout fires when the scan finds the deadline passed with none
    // pending (tcp.cpp:548-569).
    void rtx_timer_hook(simtime_picosec now, simtime_picosec period) override {
        bool pending = this->_rtx_timeout_pending;
        Source::rtx_timer_hook(now, period);
        timeouts += !pending && this->_rtx_timeout_pending;
    }

    void receivePacket(Packet& pkt) override {
        // Read before the base class frees the packet (tcp.cpp:142).
        TcpAck::seq_t ackno = static_cast<TcpAck&>(pkt).ackno();
        Source::receivePacket(pkt);
        if (_record.finish == 0 && ackno >= this->_flow_size) {
            _record.finish = eventlist.now();
            unfinished_count--;
        }
    }

private:
    Record& _record;
};

void usage(const char* prog) {
    fprintf(stderr,
            "usage: %s -tm FILE -proto tcp|dctcp [-nodes N] [-tiers 2|3] [-linkspeed MBPS]\n"
            "       [-hop_latency_ns NS] [-queue_bytes B] [-payload B] [-rtx_scan_us US] [-end_us US] [-seed S]\n"
            "       [-ssthresh_pkts N] [-host_queue prio|ecn]\n",
            prog);
    exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    const char* tm = NULL;
    std::string proto;
    uint32_t nodes = 128, tiers = 2, seed = 1;
    double linkspeed_mbps = 10000, hop_latency_ns = 1000, rtx_scan_us = 10000, end_us = 60e6;
    mem_b queue_bytes = 100 * 1500;
    uint64_t payload = 1460, ssthresh_pkts = 0;  // 0: htsim's own initial ssthresh (tcp.cpp:32)
    std::string host_queue = "prio";
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage(argv[0]);
        const char* v = argv[++i];
        if (a == "-tm") tm = v;
        else if (a == "-proto") proto = v;
        else if (a == "-nodes") nodes = atoi(v);
        else if (a == "-tiers") tiers = atoi(v);
        else if (a == "-linkspeed") linkspeed_mbps = atof(v);
        else if (a == "-hop_latency_ns") hop_latency_ns = atof(v);
        else if (a == "-queue_bytes") queue_bytes = atoll(v);
        else if (a == "-payload") payload = atoll(v);
        else if (a == "-rtx_scan_us") rtx_scan_us = atof(v);
        else if (a == "-end_us") end_us = atof(v);
        else if (a == "-seed") seed = atoi(v);
        else if (a == "-ssthresh_pkts") ssthresh_pkts = atoll(v);
        else if (a == "-host_queue") host_queue = v;
        else usage(argv[0]);
    }
    if (!tm || (proto != "tcp" && proto != "dctcp") || (host_queue != "prio" && host_queue != "ecn")) usage(argv[0]);
    srand(seed);
    eventlist.setEndtime(timeFromUs(end_us));

    ConnectionMatrix matrix(nodes);
    if (!matrix.load(tm)) {
        fprintf(stderr, "cannot read the connection matrix %s\n", tm);
        return 2;
    }
    if (matrix.N != nodes) {
        fprintf(stderr, "the matrix has %u nodes, the topology %u\n", matrix.N, nodes);
        return 2;
    }

    // Every port an ECN queue (ECNQueue, K = 15 packets, fat_tree_topology.cpp:674);
    // a TCP source ignores the marks, so TCP sees drop-tail ports. Hosts send
    // through a FIFO (PriorityQueue: ACKs ahead of data, unbounded).
    FatTreeTopology::set_tiers(tiers);
    FatTreeTopology top(nodes, speedFromMbps(linkspeed_mbps), queue_bytes, NULL, &eventlist, NULL, ECN,
                        timeFromNs(hop_latency_ns), 0, PRIORITY);
    if (top.no_of_nodes() != nodes) {
        fprintf(stderr, "a %u-tier fat tree of %u nodes does not exist\n", tiers, nodes);
        return 2;
    }

    // An experiment, not htsim's own: each host sends through an ECNQueue
    // marking as the switch ports do, without a size limit (as dcflow's host
    // NIC, docs/fidelity.md "Host NIC"). Routes are built below, from these.
    if (host_queue == "ecn") {
        for (uint32_t srv = 0; srv < nodes; srv++) {
            BaseQueue*& q = top.queues_ns_nlp[srv][top.HOST_POD_SWITCH(srv)][0];
            q = new ECNQueue(speedFromMbps(linkspeed_mbps), (mem_b)1 << 50, eventlist, NULL, memFromPkt(15));
            q->setName("SRC" + ntoa(srv) + "-ecn");
        }
    }

    TcpRtxTimerScanner scanner(timeFromUs(rtx_scan_us), eventlist);
    const uint64_t mss = Packet::data_packet_size();
    std::map<std::pair<int, int>, std::vector<const Route*>*> paths;
    auto paths_of = [&](int s, int d) {
        auto& p = paths[{s, d}];
        if (!p) p = top.get_bidir_paths(s, d, false);
        return p;
    };

    std::vector<connection*>* conns = matrix.getAllConnections();
    std::vector<Record> records(conns->size());
    unfinished_count = conns->size();
    for (size_t i = 0; i < conns->size(); i++) {
        connection* c = conns->at(i);
        Record& r = records[i];
        // dcflow's packets carry `payload` bytes each; htsim's sequence
        // space counts whole packets of mss bytes.
        r.id = c->flowid;
        r.packets = (c->size + payload - 1) / payload;
        if (r.packets == 0) r.packets = 1;
        r.start = c->start;

        TcpSrc* src;
        if (proto == "tcp") src = new Finishing<TcpSrc>(r);
        else src = new Finishing<DCTCPSrc>(r);
        // The SYN takes sequence number 1 and data starts at 2
        // (tcp.cpp:388-390); send_packets sends while _highest_sent <=
        // _flow_size + 1 (:417-418) and the flow is done at an ACK >=
        // _flow_size (:186). With packets * mss - 1 it sends exactly its
        // packets and is done at the ACK of the last; set_flowsize (tcp.h:45)
        // adds an mss, which would send one packet more and wait for it.
        src->_flow_size = r.packets * mss - 1;
        if (ssthresh_pkts) src->set_ssthresh(ssthresh_pkts * mss);
        TcpSink* sink = new TcpSink();
        scanner.registerTcp(*src);

        std::vector<const Route*>* out = paths_of(c->src, c->dst);
        size_t choice = rand() % out->size();
        Route* routeout = new Route(*out->at(choice));
        routeout->push_back(sink);
        Route* routein = new Route(*paths_of(c->dst, c->src)->at(choice));
        routein->push_back(src);
        src->connect(*routeout, *routein, *sink, c->start);
    }

    while (unfinished_count > 0 && eventlist.doNextEvent()) {
    }

    for (const Record& r : records) {
        if (r.finish) printf("fct %u %lu %lu %lu\n", r.id, (unsigned long)r.packets, (unsigned long)r.start,
                             (unsigned long)(r.finish - r.start));
        else printf("unfinished %u %lu %lu\n", r.id, (unsigned long)r.packets, (unsigned long)r.start);
    }
    printf("timeouts %lu\n", (unsigned long)timeouts);
    return 0;
}
