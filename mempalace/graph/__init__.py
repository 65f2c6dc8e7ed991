"""The palace as a graph: rooms are nodes, a room in several wings is a tunnel between them."""

from .merges import merge_rooms, suggest_room_merges
from .network import build_graph, find_tunnels, graph_stats, traverse, tunnel_weight

__all__ = ["build_graph", "find_tunnels", "graph_stats", "merge_rooms", "suggest_room_merges", "traverse",
           "tunnel_weight"]
