/* enetmp: a C ENet 1.3 client that speaks Godot 4's ENetMultiplayerPeer channel map, for the
 * tests of godot/multiplayer over ENet.
 *
 *   enetmp HOST PORT ID CHANNELS
 *
 * connects with CHANNELS channels and ID as the CONNECT data (as create_client does), prints
 * "connected", then serves the host: every packet received is printed as
 * "recv CHANNEL FLAGS HEX" (FLAGS as C ENet reports them), and every line read from standard
 * input "send CHANNEL FLAGS HEX" is sent (FLAGS: ENET_PACKET_FLAG_* bits). "quit" disconnects.
 */
#include <enet/enet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int unhex(const char *s, unsigned char *out, size_t max) {
	size_t n = strlen(s), i;
	if (n % 2 || n / 2 > max) return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
		out[i] = (unsigned char)v;
	}
	return (int)(n / 2);
}

int main(int argc, char **argv) {
	if (argc != 5) {
		fprintf(stderr, "usage: enetmp HOST PORT ID CHANNELS\n");
		return 2;
	}
	if (enet_initialize() != 0) return 1;
	ENetHost *host = enet_host_create(NULL, 1, 0, 0, 0);
	if (!host) return 1;
	ENetAddress addr;
	enet_address_set_host(&addr, argv[1]);
	addr.port = (enet_uint16)atoi(argv[2]);
	ENetPeer *peer = enet_host_connect(host, &addr, (size_t)atoi(argv[4]), (enet_uint32)strtoul(argv[3], NULL, 10));
	if (!peer) return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	static char line[1 << 18];
	size_t have = 0;
	static unsigned char buf[1 << 16];
	for (;;) {
		ENetEvent ev;
		while (enet_host_service(host, &ev, 5) > 0) {
			switch (ev.type) {
			case ENET_EVENT_TYPE_CONNECT:
				printf("connected\n");
				break;
			case ENET_EVENT_TYPE_DISCONNECT:
				printf("disconnected %u\n", ev.data);
				return 0;
			case ENET_EVENT_TYPE_RECEIVE: {
				printf("recv %u %u ", ev.channelID, ev.packet->flags & (ENET_PACKET_FLAG_RELIABLE | ENET_PACKET_FLAG_UNSEQUENCED));
				for (size_t i = 0; i < ev.packet->dataLength; i++) printf("%02x", ev.packet->data[i]);
				printf("\n");
				enet_packet_destroy(ev.packet);
				break;
			}
			default:
				break;
			}
		}
		struct pollfd pfd = {0, POLLIN, 0};
		if (poll(&pfd, 1, 0) <= 0) continue;
		/* Standard input is read with read(2), not stdio: poll must see every line. */
		ssize_t r = read(0, line + have, sizeof line - 1 - have);
		if (r <= 0) {
			strcpy(line, "quit\n");
			have = 5;
		} else {
			have += (size_t)r;
		}
		line[have] = 0;
		char *start = line, *nl;
		while ((nl = strchr(start, '\n')) != NULL) {
			*nl = 0;
			if (strncmp(start, "quit", 4) == 0) {
				enet_peer_disconnect(peer, 0);
				for (int i = 0; i < 50; i++) {
					if (enet_host_service(host, &ev, 10) > 0 && ev.type == ENET_EVENT_TYPE_DISCONNECT) break;
				}
				return 0;
			}
			unsigned ch, flags;
			static char hex[sizeof line];
			if (sscanf(start, "send %u %u %s", &ch, &flags, hex) == 3) {
				int n = unhex(hex, buf, sizeof buf);
				if (n < 0) {
					fprintf(stderr, "bad hex\n");
				} else {
					enet_peer_send(peer, (enet_uint8)ch, enet_packet_create(buf, (size_t)n, flags));
					enet_host_flush(host);
				}
			}
			start = nl + 1;
		}
		have = strlen(start);
		memmove(line, start, have + 1);
	}
}
