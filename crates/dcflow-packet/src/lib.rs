//! Packet-level engine: drives dcflow-proto endpoints over dcflow-net.
