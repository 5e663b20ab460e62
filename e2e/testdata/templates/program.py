import threading

#@HELPER@


class Node:
    def __init__(self):
        self.me = self


def main():
    #@CALL:nested@
    #@CALL:strings@
    #@CALL:scalars@
    #@CALL:oversize@
    #@CALL:unserializable@
    #@CALL:throws@
    #@CALL:secret@

    def worker(t):
        for i in range(25):
            #@CALL:thread@
            pass

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    print("program done")


main()
