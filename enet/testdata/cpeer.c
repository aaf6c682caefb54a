/* cpeer: a C ENet peer for gamewire's tests, driven line by line on stdin.

   cpeer server PORT [options]            listen on 127.0.0.1:PORT (0: any free port)
   cpeer client HOST PORT [options]       connect to HOST:PORT
   options: -channels N  -data N  -echo  -checksum  -rangecoder  -mtu N  -peers N
            -timeout LIMIT MIN MAX  -bw IN OUT  -service MS
   stdin:   send CH FLAGS LEN SEED | burst COUNT CH FLAGS LEN | disconnect DATA | later DATA |
            now DATA | reset | flush | quit
   stdout:  listening PORT | connect ID DATA | recv CH FLAGS LEN HASH | disconnect DATA |
            sent | error TEXT
   HASH is FNV-1a 32 of the packet's bytes; payload byte i of "send" is (i*7+SEED)&255. */
#include <enet/enet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned fnv(const unsigned char *p, size_t n) {
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
    return h;
}

static ENetPeer *current;
static char line[4096];
static size_t lineLen;

static void command(ENetHost *host, char *l) {
    unsigned a, b, c, d;
    if (sscanf(l, "send %u %u %u %u", &a, &b, &c, &d) == 4) {
        if (!current) { printf("error no peer\n"); return; }
        ENetPacket *p = enet_packet_create(NULL, c, b);
        for (unsigned i = 0; i < c; i++) p->data[i] = (unsigned char)(i * 7 + d);
        if (enet_peer_send(current, (enet_uint8)a, p) < 0) { printf("error send\n"); enet_packet_destroy(p); return; }
        printf("sent\n");
    } else if (sscanf(l, "burst %u %u %u %u", &a, &b, &c, &d) == 4) {
        for (unsigned k = 0; k < a; k++) {
            ENetPacket *p = enet_packet_create(NULL, d, c);
            for (unsigned i = 0; i < d; i++) p->data[i] = (unsigned char)(i * 7 + k);
            if (enet_peer_send(current, (enet_uint8)b, p) < 0) { printf("error send\n"); enet_packet_destroy(p); return; }
        }
        printf("sent\n");
    } else if (sscanf(l, "disconnect %u", &a) == 1) {
        if (current) enet_peer_disconnect(current, a);
    } else if (sscanf(l, "later %u", &a) == 1) {
        if (current) enet_peer_disconnect_later(current, a);
    } else if (sscanf(l, "now %u", &a) == 1) {
        if (current) { enet_peer_disconnect_now(current, a); current = NULL; printf("disconnect now\n"); }
    } else if (strncmp(l, "reset", 5) == 0) {
        if (current) { enet_peer_reset(current); current = NULL; printf("reset\n"); }
    } else if (strncmp(l, "flush", 5) == 0) {
        enet_host_flush(host);
    } else if (strncmp(l, "quit", 4) == 0) {
        enet_host_flush(host);
        exit(0);
    } else {
        printf("error unknown command %s\n", l);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage\n"); return 2; }
    if (strcmp(argv[1], "rangecoder") == 0) {
        /* cpeer rangecoder HEX...: each argument range-coded by C ENet, printed as hex
           ("-" when it does not get smaller), with the same coder for all, as a host does. */
        void *rc = enet_range_coder_create();
        for (int a = 2; a < argc; a++) {
            size_t n = strlen(argv[a]) / 2;
            unsigned char *in = malloc(n + 1), *out = malloc(n + 1);
            for (size_t k = 0; k < n; k++) sscanf(argv[a] + 2 * k, "%2hhx", &in[k]);
            ENetBuffer buf = { .data = in, .dataLength = n };
            size_t m = enet_range_coder_compress(rc, &buf, 1, n, out, n);
            if (m == 0 || m >= n) printf("-\n");
            else { for (size_t k = 0; k < m; k++) printf("%02x", out[k]); printf("\n"); }
            free(in); free(out);
        }
        return 0;
    }
    int server = strcmp(argv[1], "server") == 0;
    int i = server ? 3 : 4;
    unsigned channels = 4, data = 0, mtu = 0, peers = 32, service = 1;
    unsigned tl = 0, tmin = 0, tmax = 0, bwin = 0, bwout = 0;
    int echo = 0, checksum = 0, range = 0;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-channels")) channels = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-data")) data = strtoul(argv[++i], 0, 0);
        else if (!strcmp(argv[i], "-echo")) echo = 1;
        else if (!strcmp(argv[i], "-checksum")) checksum = 1;
        else if (!strcmp(argv[i], "-rangecoder")) range = 1;
        else if (!strcmp(argv[i], "-mtu")) mtu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-peers")) peers = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-service")) service = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-timeout")) { tl = atoi(argv[++i]); tmin = atoi(argv[++i]); tmax = atoi(argv[++i]); }
        else if (!strcmp(argv[i], "-bw")) { bwin = atoi(argv[++i]); bwout = atoi(argv[++i]); }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (enet_initialize() != 0) return 1;
    ENetAddress addr;
    ENetHost *host;
    if (server) {
        enet_address_set_host(&addr, "127.0.0.1");
        addr.port = atoi(argv[2]);
        host = enet_host_create(&addr, peers, channels, bwin, bwout);
    } else {
        host = enet_host_create(NULL, 1, channels, bwin, bwout);
    }
    if (!host) { printf("error host\n"); return 1; }
    if (mtu) host->mtu = mtu;
    if (checksum) host->checksum = enet_crc32;
    if (range) enet_host_compress_with_range_coder(host);
    if (server) {
        ENetAddress got;
        enet_socket_get_address(host->socket, &got);
        printf("listening %u\n", got.port);
    } else {
        enet_address_set_host(&addr, argv[2]);
        addr.port = atoi(argv[3]);
        current = enet_host_connect(host, &addr, channels, data);
        if (!current) { printf("error connect\n"); return 1; }
        if (tl) enet_peer_timeout(current, tl, tmin, tmax);
    }
    for (;;) {
        struct pollfd pfd = { 0, POLLIN, 0 };
        if (poll(&pfd, 1, 0) > 0) {
            char buf[4096];
            ssize_t n = read(0, buf, sizeof buf);
            if (n <= 0) { enet_host_flush(host); return 0; }
            for (ssize_t k = 0; k < n; k++) {
                if (buf[k] == '\n') { line[lineLen] = 0; command(host, line); lineLen = 0; }
                else if (lineLen < sizeof line - 1) line[lineLen++] = buf[k];
            }
        }
        ENetEvent ev;
        while (enet_host_service(host, &ev, service) > 0) {
            switch (ev.type) {
            case ENET_EVENT_TYPE_CONNECT:
                current = ev.peer;
                if (tl) enet_peer_timeout(current, tl, tmin, tmax);
                printf("connect %u %u\n", ev.peer->incomingPeerID, ev.data);
                break;
            case ENET_EVENT_TYPE_RECEIVE:
                printf("recv %u %u %u %08x\n", ev.channelID, ev.packet->flags & 11, (unsigned)ev.packet->dataLength,
                       fnv(ev.packet->data, ev.packet->dataLength));
                if (echo) {
                    ENetPacket *p = enet_packet_create(ev.packet->data, ev.packet->dataLength, ev.packet->flags & 11);
                    enet_peer_send(ev.peer, ev.channelID, p);
                }
                enet_packet_destroy(ev.packet);
                break;
            case ENET_EVENT_TYPE_DISCONNECT:
                printf("disconnect %u\n", ev.data);
                if (ev.peer == current) current = NULL;
                break;
            default:
                break;
            }
            if (poll(&pfd, 1, 0) > 0) break;
        }
    }
}
