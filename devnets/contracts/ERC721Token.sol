// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}

/// @title Minimal ERC-721 with an owner-only mint for the EVM devnet faucet.
contract ERC721Token {
    string public constant name = "Switchyard Devnet NFT";
    string public constant symbol = "SYNFT";

    address public owner;
    uint256 public totalSupply;
    uint256 private nextTokenId = 1;

    mapping(uint256 => address) private owners;
    mapping(address => uint256) private balances;
    mapping(uint256 => address) private tokenApprovals;
    mapping(address => mapping(address => bool)) private operatorApprovals;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    constructor() {
        owner = msg.sender;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x80ac58cd || interfaceId == 0x5b5e139f || interfaceId == 0x01ffc9a7;
    }

    function balanceOf(address holder) external view returns (uint256) {
        require(holder != address(0), "ERC721: balance query for the zero address");
        return balances[holder];
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        address holder = owners[tokenId];
        require(holder != address(0), "ERC721: owner query for nonexistent token");
        return holder;
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        return string(abi.encodePacked("https://devnet.switchyard.invalid/nft/", _toString(tokenId)));
    }

    function approve(address to, uint256 tokenId) external {
        address holder = ownerOf(tokenId);
        require(msg.sender == holder || operatorApprovals[holder][msg.sender], "ERC721: not owner nor approved");
        tokenApprovals[tokenId] = to;
        emit Approval(holder, to, tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        ownerOf(tokenId);
        return tokenApprovals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address holder, address operator) external view returns (bool) {
        return operatorApprovals[holder][operator];
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address holder = ownerOf(tokenId);
        require(holder == from, "ERC721: transfer from incorrect owner");
        require(
            msg.sender == holder || tokenApprovals[tokenId] == msg.sender || operatorApprovals[holder][msg.sender],
            "ERC721: caller is not owner nor approved"
        );
        require(to != address(0), "ERC721: transfer to the zero address");
        delete tokenApprovals[tokenId];
        balances[from] -= 1;
        balances[to] += 1;
        owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        if (to.code.length > 0) {
            bytes4 answer = IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data);
            require(answer == IERC721Receiver.onERC721Received.selector, "ERC721: receiver rejected the token");
        }
    }

    /// Mints the next token id to `to`; the devnet faucet calls this from the deployer account.
    function mint(address to) external returns (uint256 tokenId) {
        require(msg.sender == owner, "ERC721: caller is not the owner");
        require(to != address(0), "ERC721: mint to the zero address");
        tokenId = nextTokenId++;
        totalSupply += 1;
        balances[to] += 1;
        owners[tokenId] = to;
        emit Transfer(address(0), to, tokenId);
    }

    function _toString(uint256 value) private pure returns (string memory) {
        if (value == 0) return "0";
        uint256 digits;
        for (uint256 v = value; v != 0; v /= 10) digits++;
        bytes memory out = new bytes(digits);
        while (value != 0) {
            digits--;
            out[digits] = bytes1(uint8(48 + (value % 10)));
            value /= 10;
        }
        return string(out);
    }
}
