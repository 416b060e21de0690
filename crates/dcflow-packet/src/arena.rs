//! Packets live in one arena and travel through queues and events by index
//! (docs/architecture.md rule 2): an event is a few bytes, a queue entry is a few bytes,
//! and a packet is written once and read in place.

use dcflow_proto::Packet;

#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    vacant: Vec<u32>,
}

impl PacketArena {
    pub fn insert(&mut self, p: Packet) -> u32 {
        match self.vacant.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                i
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        }
    }
    #[inline]
    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }
    /// The packet is gone; its slot is reused by the next insert.
    pub fn free(&mut self, i: u32) {
        self.vacant.push(i);
    }
}
