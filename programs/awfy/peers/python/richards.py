# richards.py - peer of ../../richards.bc: the Richards benchmark with the
# same classes, methods and checks, printing the same lines.
# Usage: python3 richards.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run

IDLER, WORKER, HANDLER_A, HANDLER_B, DEVICE_A, DEVICE_B = range(6)
DEVICE_PACKET_KIND, WORK_PACKET_KIND = 0, 1
DATA_SIZE = 4


class RBObject:
    def append_packet(self, packet, queue_head):
        packet.link = None
        if queue_head is None:
            return packet
        mouse = queue_head
        while True:
            link = mouse.link
            if link is None:
                break
            mouse = link
        mouse.link = packet
        return queue_head


class Packet(RBObject):
    def __init__(self, link, identity, kind):
        self.link = link
        self.identity = identity
        self.kind = kind
        self.datum = 0
        self.data = [0] * DATA_SIZE


class DeviceTaskDataRecord(RBObject):
    def __init__(self):
        self.pending = None


class HandlerTaskDataRecord(RBObject):
    def __init__(self):
        self.work_in = None
        self.device_in = None

    def device_in_add(self, packet):
        self.device_in = self.append_packet(packet, self.device_in)

    def work_in_add(self, packet):
        self.work_in = self.append_packet(packet, self.work_in)


class IdleTaskDataRecord(RBObject):
    def __init__(self):
        self.control = 1
        self.count = 10000


class WorkerTaskDataRecord(RBObject):
    def __init__(self):
        self.destination = HANDLER_A
        self.count = 0


class TaskState(RBObject):
    def __init__(self):
        self.packet_pending = False
        self.task_waiting = False
        self.task_holding = False

    def is_packet_pending(self):
        return self.packet_pending

    def is_task_waiting(self):
        return self.task_waiting

    def is_task_holding(self):
        return self.task_holding

    def set_task_holding(self, b):
        self.task_holding = b

    def set_task_waiting(self, b):
        self.task_waiting = b

    def set_states(self, pending, waiting, holding):
        self.packet_pending = pending
        self.task_waiting = waiting
        self.task_holding = holding
        return self

    def packet_pending_state(self):
        return self.set_states(True, False, False)

    def running(self):
        return self.set_states(False, False, False)

    def waiting(self):
        return self.set_states(False, True, False)

    def waiting_with_packet(self):
        return self.set_states(True, True, False)

    def is_task_holding_or_waiting(self):
        return self.task_holding or (not self.packet_pending and self.task_waiting)

    def is_waiting_with_packet(self):
        return self.packet_pending and self.task_waiting and not self.task_holding


class TaskControlBlock(TaskState):
    def __init__(self, link, identity, priority, work, state, data, fn):
        super().__init__()
        self.link = link
        self.identity = identity
        self.function = fn
        self.priority = priority
        self.input = work
        self.handle = data
        self.packet_pending = state.is_packet_pending()
        self.task_waiting = state.is_task_waiting()
        self.task_holding = state.is_task_holding()

    def add_input_and_check_priority(self, packet, old_task):
        if self.input is None:
            self.input = packet
            self.packet_pending = True
            if self.priority > old_task.priority:
                return self
        else:
            self.input = self.append_packet(packet, self.input)
        return old_task

    def run_task(self):
        if self.is_waiting_with_packet():
            message = self.input
            self.input = message.link
            if self.input is None:
                self.running()
            else:
                self.packet_pending_state()
        else:
            message = None
        return self.function.process(message, self.handle)


class ProcessFunction:
    def __init__(self):
        self.scheduler = None


class DeviceFunction(ProcessFunction):
    def process(self, work, data):
        s = self.scheduler
        if work is None:
            work = data.pending
            if work is None:
                return s.mark_waiting()
            data.pending = None
            return s.queue_packet(work)
        data.pending = work
        return s.hold_self()


class HandlerFunction(ProcessFunction):
    def process(self, work, data):
        s = self.scheduler
        if work is not None:
            if work.kind == WORK_PACKET_KIND:
                data.work_in_add(work)
            else:
                data.device_in_add(work)
        work_packet = data.work_in
        if work_packet is None:
            return s.mark_waiting()
        count = work_packet.datum
        if count >= DATA_SIZE:
            data.work_in = work_packet.link
            return s.queue_packet(work_packet)
        device_packet = data.device_in
        if device_packet is None:
            return s.mark_waiting()
        data.device_in = device_packet.link
        device_packet.datum = work_packet.data[count]
        work_packet.datum = count + 1
        return s.queue_packet(device_packet)


class IdlerFunction(ProcessFunction):
    def process(self, work, data):
        s = self.scheduler
        data.count = data.count - 1
        if data.count == 0:
            return s.hold_self()
        if data.control & 1 == 0:
            data.control = data.control // 2
            return s.release(DEVICE_A)
        data.control = (data.control // 2) ^ 53256
        return s.release(DEVICE_B)


class WorkerFunction(ProcessFunction):
    def process(self, work, data):
        s = self.scheduler
        if work is None:
            return s.mark_waiting()
        if data.destination == HANDLER_A:
            data.destination = HANDLER_B
        else:
            data.destination = HANDLER_A
        work.identity = data.destination
        work.datum = 0
        for i in range(DATA_SIZE):
            data.count = data.count + 1
            if data.count > 26:
                data.count = 1
            work.data[i] = 64 + data.count
        return s.queue_packet(work)


class Scheduler(RBObject):
    def __init__(self):
        self.task_list = None
        self.current_task = None
        self.current_task_identity = 0
        self.task_table = [None] * 6
        self.queue_count = 0
        self.hold_count = 0

    def create_task(self, identity, priority, work, state, data, fn):
        fn.scheduler = self
        t = TaskControlBlock(self.task_list, identity, priority, work, state, data, fn)
        self.task_list = t
        self.task_table[identity] = t

    def create_device(self, identity, priority, work, state):
        self.create_task(identity, priority, work, state, DeviceTaskDataRecord(), DeviceFunction())

    def create_handler(self, identity, priority, work, state):
        self.create_task(identity, priority, work, state, HandlerTaskDataRecord(), HandlerFunction())

    def create_idler(self, identity, priority, work, state):
        self.create_task(identity, priority, work, state, IdleTaskDataRecord(), IdlerFunction())

    def create_worker(self, identity, priority, work, state):
        self.create_task(identity, priority, work, state, WorkerTaskDataRecord(), WorkerFunction())

    def create_packet(self, link, identity, kind):
        return Packet(link, identity, kind)

    def start(self):
        self.create_idler(IDLER, 0, None, TaskState().running())
        wkq = self.create_packet(None, WORKER, WORK_PACKET_KIND)
        wkq = self.create_packet(wkq, WORKER, WORK_PACKET_KIND)
        self.create_worker(WORKER, 1000, wkq, TaskState().waiting_with_packet())
        wkq = self.create_packet(None, DEVICE_A, DEVICE_PACKET_KIND)
        wkq = self.create_packet(wkq, DEVICE_A, DEVICE_PACKET_KIND)
        wkq = self.create_packet(wkq, DEVICE_A, DEVICE_PACKET_KIND)
        self.create_handler(HANDLER_A, 2000, wkq, TaskState().waiting_with_packet())
        wkq = self.create_packet(None, DEVICE_B, DEVICE_PACKET_KIND)
        wkq = self.create_packet(wkq, DEVICE_B, DEVICE_PACKET_KIND)
        wkq = self.create_packet(wkq, DEVICE_B, DEVICE_PACKET_KIND)
        self.create_handler(HANDLER_B, 3000, wkq, TaskState().waiting_with_packet())
        self.create_device(DEVICE_A, 4000, None, TaskState().waiting())
        self.create_device(DEVICE_B, 5000, None, TaskState().waiting())
        self.schedule()
        return self.queue_count == expect(23246) and self.hold_count == 9297

    def find_task(self, identity):
        t = self.task_table[identity]
        if t is None:
            raise Exception("find_task failed")
        return t

    def hold_self(self):
        self.hold_count += 1
        self.current_task.set_task_holding(True)
        return self.current_task.link

    def queue_packet(self, packet):
        task = self.find_task(packet.identity)
        if task is None:
            return None
        self.queue_count += 1
        packet.link = None
        packet.identity = self.current_task_identity
        return task.add_input_and_check_priority(packet, self.current_task)

    def release(self, identity):
        task = self.find_task(identity)
        if task is None:
            return None
        task.set_task_holding(False)
        if task.priority > self.current_task.priority:
            return task
        return self.current_task

    def mark_waiting(self):
        self.current_task.set_task_waiting(True)
        return self.current_task

    def schedule(self):
        self.current_task = self.task_list
        while self.current_task is not None:
            task = self.current_task
            if task.is_task_holding_or_waiting():
                self.current_task = task.link
            else:
                self.current_task_identity = task.identity
                self.current_task = task.run_task()


class Richards(Benchmark):
    def benchmark(self):
        return Scheduler().start()

    def verify_result(self, result):
        return result


run(Richards(), "Richards", 1)
