"""Who may do what: roles and wing scopes (`rules`), and the palace's append-only audit log with its
anchor and the agents' tokens (`audit`)."""

from .._faces import lazy_names

__all__ = ["AccessBook", "AccessRule", "Actor", "AuditEntry", "Grant", "TokenInfo", "acting_as", "current_actor",
           "is_loopback", "parse_rules"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["Actor", "Grant", "AccessRule", "parse_rules", "current_actor", "acting_as", "is_loopback"], "rules"),
    **dict.fromkeys(["AccessBook", "AuditEntry", "TokenInfo"], "audit"),
}, former="rules")
