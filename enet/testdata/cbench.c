/* cbench: C ENet's side of gamewire's ENet benchmarks. One process holds the server host and
   the client host, as the Go benchmark does, and services both in one thread.

   cbench rt PEERS SIZE COUNT   COUNT reliable round trips of SIZE-byte packets, spread over
                                PEERS client peers each with one packet in flight
   cbench xfer TOTAL CHUNK      TOTAL bytes sent reliably in CHUNK-byte packets, client to server
   prints: ELAPSED_NS CPU_NS */
#include <enet/enet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long cpu_ns(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
           ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    enet_initialize();
    ENetAddress addr;
    enet_address_set_host(&addr, "127.0.0.1");
    addr.port = 0;
    int rt = strcmp(argv[1], "rt") == 0;
    int peers = rt ? atoi(argv[2]) : 1;
    size_t size = rt ? (size_t)atoi(argv[3]) : (size_t)atoi(argv[3]);
    long long count = rt ? atoll(argv[4]) : atoll(argv[2]) / (long long)size;
    ENetHost *server = enet_host_create(&addr, peers, 2, 0, 0);
    ENetAddress got;
    enet_socket_get_address(server->socket, &got);
    ENetHost *client = enet_host_create(NULL, peers, 2, 0, 0);
    for (int i = 0; i < peers; i++) enet_host_connect(client, &got, 2, 0);
    int connected = 0;
    ENetEvent ev;
    while (connected < peers) {
        while (enet_host_service(server, &ev, 0) > 0) {}
        while (enet_host_service(client, &ev, 1) > 0)
            if (ev.type == ENET_EVENT_TYPE_CONNECT) connected++;
    }
    unsigned char *buf = calloc(size ? size : 1, 1);
    long long t0 = now_ns(), c0 = cpu_ns(), done = 0, sent = 0;
    if (rt) {
        for (int i = 0; i < peers && sent < count; i++, sent++)
            enet_peer_send(&client->peers[i], 0, enet_packet_create(buf, size, ENET_PACKET_FLAG_RELIABLE));
        while (done < count) {
            while (enet_host_service(server, &ev, 0) > 0)
                if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                    enet_peer_send(ev.peer, 0, enet_packet_create(ev.packet->data, ev.packet->dataLength, ENET_PACKET_FLAG_RELIABLE));
                    enet_packet_destroy(ev.packet);
                }
            enet_host_flush(server);
            while (enet_host_service(client, &ev, 0) > 0)
                if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                    done++;
                    if (sent < count) {
                        enet_peer_send(ev.peer, 0, enet_packet_create(buf, size, ENET_PACKET_FLAG_RELIABLE));
                        sent++;
                    }
                    enet_packet_destroy(ev.packet);
                }
            enet_host_flush(client);
        }
    } else {
        for (long long i = 0; i < count; i++)
            enet_peer_send(&client->peers[0], 0, enet_packet_create(buf, size, ENET_PACKET_FLAG_RELIABLE));
        while (done < count) {
            enet_host_service(client, &ev, 0);
            while (enet_host_service(server, &ev, 0) > 0)
                if (ev.type == ENET_EVENT_TYPE_RECEIVE) { done++; enet_packet_destroy(ev.packet); }
        }
    }
    printf("%lld %lld\n", now_ns() - t0, cpu_ns() - c0);
    return 0;
}
